package provider

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// secretGateBody writes a write-only secret into the workspace and has a
// command copy it into output/, where the agent's results go; extra takes
// an export or a snapshot of them.
func secretGateBody(extra string) string {
	return `
variable "token" {
  type      = string
  sensitive = true
  ephemeral = true
}
resource "sandbox_file" "token" {
  workspace_id       = sandbox_workspace.ws.id
  path               = "secrets/token"
  content_wo         = var.token
  content_wo_version = 1
  permissions        = "0600"
}
resource "sandbox_command" "leak" {
  workspace_id = sandbox_workspace.ws.id
  command      = ["sh", "-c", "mkdir -p output && echo done > output/report.txt && cat secrets/token > output/copy.txt"]
  depends_on   = [sandbox_file.token]
}
` + extra
}

// A command that copies a content_wo secret into output/ makes the export
// and the snapshot of output/ fail, naming the path and the attribute;
// the value is in no error, no state and no log line. allow_secrets lets
// them through.
func TestAccSecretGate_exportAndSnapshot(t *testing.T) {
	env := newTestEnv(t)
	const secret = "gate-secret-4e8b1d77"
	logPath := filepath.Join(t.TempDir(), "trace.log")
	t.Setenv("TF_LOG", "trace")
	t.Setenv("TF_LOG_PATH", logPath)
	t.Setenv("TF_VAR_token", secret)
	dest := filepath.Join(t.TempDir(), "results")
	snaps := filepath.Join(t.TempDir(), "snaps")
	export := func(allow string) string {
		return fmt.Sprintf(`
resource "sandbox_export" "out" {
  workspace_id = sandbox_workspace.ws.id
  paths        = ["output/**"]
  destination  = %q
  %s
  depends_on   = [sandbox_command.leak]
}
`, dest, allow)
	}
	snapshot := func(allow string) string {
		return fmt.Sprintf(`
resource "sandbox_snapshot" "s" {
  workspace_id = sandbox_workspace.ws.id
  local { base_path = %q }
  exclude      = ["secrets"]
  %s
  depends_on   = [sandbox_command.leak]
}
`, snaps, allow)
	}
	noValue := func(s *terraform.State) error {
		if err := noSecretInState(secret)(s); err != nil {
			return err
		}
		log, err := os.ReadFile(logPath)
		if err != nil {
			return err
		}
		if len(log) == 0 || bytes.Contains(log, []byte(secret)) {
			return fmt.Errorf("the trace log (%d bytes) holds the secret or is empty", len(log))
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config:      env.config(secretGateBody(export(""))),
				ExpectError: loose("export refused: output/copy.txt holds the value of the write-only attribute sandbox_file.content_wo"),
			},
			{
				// Nothing of the failed export is left at the destination.
				Config: env.config(secretGateBody("")),
				Check: resource.ComposeTestCheckFunc(noValue, func(*terraform.State) error {
					if _, err := os.Stat(filepath.Join(dest, "output", "copy.txt")); !os.IsNotExist(err) {
						return fmt.Errorf("the refused file is at the destination: %w", err)
					}
					return nil
				}),
			},
			{
				Config:      env.config(secretGateBody(snapshot(""))),
				ExpectError: loose("snapshot refused: output/copy.txt holds the value of the write-only attribute sandbox_file.content_wo"),
			},
			{
				Config: env.config(secretGateBody("")),
				Check: resource.ComposeTestCheckFunc(noValue, func(*terraform.State) error {
					if m, _ := filepath.Glob(filepath.Join(snaps, "*")); len(m) != 0 {
						return fmt.Errorf("the refused snapshot left %v", m)
					}
					return nil
				}),
			},
			{
				// allow_secrets lets both through: the gate was the reason.
				Config: env.config(secretGateBody(export("allow_secrets = true") + snapshot("allow_secrets = true"))),
				Check: resource.ComposeTestCheckFunc(noValue, func(*terraform.State) error {
					b, err := os.ReadFile(filepath.Join(dest, "output", "copy.txt"))
					if err != nil || string(b) != secret {
						return fmt.Errorf("exported copy: %q, %w", b, err)
					}
					return nil
				}),
			},
		},
	})
}
