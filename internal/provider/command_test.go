package provider

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func execConfig(env *testEnv, wsEnv, body string) string {
	return fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
resource "sandbox_workspace" "ws" {
  environment = %s
  local {}
}
resource "sandbox_dir" "tasks" {
  workspace_id = sandbox_workspace.ws.id
  path         = "tasks/a"
}
%s`, env.base, wsEnv, body)
}

func TestAccExec_dataSource(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	body := `
data "sandbox_exec" "probe" {
  workspace_id = sandbox_dir.tasks.workspace_id
  shell        = "pwd; echo \"$GREETING/$WHO\"; printf 'warn\\n' >&2; printf '\\377' > bin.out"
  working_dir  = "tasks/./a/"
  environment  = { WHO = "override" }
}
data "sandbox_exec" "vector" {
  workspace_id = sandbox_dir.tasks.workspace_id
  command      = ["sh", "-c", "cat bin.out; exit 3", "ignored"]
  working_dir  = "tasks/a"
  allow_non_zero_exit_code = true
  depends_on   = [data.sandbox_exec.probe]
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{{
			Config: execConfig(env, `{ GREETING = "hello", WHO = "workspace" }`, body),
			Check: func(s *terraform.State) error {
				attrs := s.RootModule().Resources["data.sandbox_exec.probe"].Primary.Attributes
				root := s.RootModule().Resources["sandbox_workspace.ws"].Primary.Attributes["root"]
				want := filepath.Join(root, "tasks/a") + "\nhello/override\n"
				if attrs["stdout"] != want || attrs["stderr"] != "warn\n" || attrs["exit_code"] != "0" {
					return fmt.Errorf("probe: stdout %q stderr %q exit %s; want stdout %q", attrs["stdout"], attrs["stderr"], attrs["exit_code"], want)
				}
				v := s.RootModule().Resources["data.sandbox_exec.vector"].Primary.Attributes
				raw, _ := base64.StdEncoding.DecodeString(v["stdout_base64"])
				if v["exit_code"] != "3" || string(raw) != "\xff" || v["stdout"] != "\uFFFD" {
					return fmt.Errorf("vector: exit %s stdout %q raw %q", v["exit_code"], v["stdout"], raw)
				}
				return nil
			},
		}},
	})
}

func TestAccExec_failures(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	cases := map[string]struct{ args, want string }{
		"non-zero": {`shell = "for i in $(seq 30); do echo line$i >&2; done; exit 7"`, `exited with code 7`},
		"tail":     {`shell = "for i in $(seq 30); do echo line$i >&2; done; exit 7"`, `... (10 earlier lines) line11`},
		"timeout": {`shell = "sleep 30"
  timeout = 1`, `did not finish within 1 seconds`},
		"cwd escape": {`shell = "true"
  working_dir = "../x"`, `sandbox.cwd must not contain parent segments`},
		"cwd abs": {`shell = "true"
  working_dir = "/tmp"`, `sandbox.cwd must be workspace-relative`},
		"local user": {`shell = "true"
  user = "agent"`, `cannot switch users`},
		"both": {`shell = "true"
  command = ["true"]`, `Exactly one of these attributes must be configured`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				TerraformVersionChecks:   requireTF111,
				Steps: []resource.TestStep{{
					Config: execConfig(env, "{}", fmt.Sprintf(`
data "sandbox_exec" "x" {
  workspace_id = sandbox_dir.tasks.workspace_id
  %s
}
`, c.args)),
					ExpectError: errRe(c.want),
				}},
			})
		})
	}
}

func TestAccCommand_runsOnCreateAndTriggers(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	cfg := func(v string) string {
		return execConfig(env, "{}", fmt.Sprintf(`
resource "sandbox_command" "setup" {
  workspace_id = sandbox_dir.tasks.workspace_id
  shell        = "echo run >> runs.log; wc -l < runs.log"
  working_dir  = "tasks/a"
  triggers     = { v = %q }
}
`, v))
	}
	runs := func(n int) resource.TestCheckFunc {
		return func(*terraform.State) error {
			b, err := os.ReadFile(filepath.Join(env.wsRoot(), "tasks/a/runs.log"))
			if err != nil {
				return err
			}
			if got := strings.Count(string(b), "run\n"); got != n {
				return fmt.Errorf("the command ran %d times, want %d", got, n)
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: cfg("1"),
				Check:  runs(1),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("sandbox_command.setup", tfjsonpath.New("stdout"), knownvalue.StringExact("1\n")),
				},
			},
			{
				// Same configuration: nothing runs.
				Config: cfg("1"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: runs(1),
			},
			{
				// A trigger changed: it runs again.
				Config: cfg("2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("sandbox_command.setup", plancheck.ResourceActionReplace)},
				},
				Check: runs(2),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("sandbox_command.setup", tfjsonpath.New("stdout"), knownvalue.StringExact("2\n")),
				},
			},
		},
	})
}

// A failed command's last lines of stderr reach the terminal of whoever
// runs Terraform: escape sequences, carriage returns and bidirectional
// characters the agent printed are shown escaped.
func TestAccCommand_failureEscapesTerminal(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: env.config(`
resource "sandbox_command" "c" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "printf 'FAIL\\033[2K\\rPASS \\342\\200\\256evil\\n' >&2; exit 3"
}
`),
			ExpectError: regexp.MustCompile(`(?s)Last lines of stderr:.*FAIL\\x1b\[2K\\x0dPASS \\u202eevil`),
		}},
	})
}
