package provider

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/fakes3"
)

// setSecretEnv puts a TF_VAR_ input and a credential-like variable into the
// environment the provider runs in, and returns their values.
func setSecretEnv(t *testing.T) []string {
	t.Helper()
	marker, token := leakSecret(t, "tf-var-marker"), leakSecret(t, "env-token")
	t.Setenv("TF_VAR_marker", marker)
	t.Setenv("SANDBOX_TEST_API_TOKEN", token)
	return []string{marker, token}
}

// noSecretIn fails when env (NAME=value lines or NUL-separated) holds any
// of secrets, and when it lacks PATH (proof that it was read at all).
func noSecretIn(what, env string, secrets []string) error {
	for _, s := range secrets {
		if strings.Contains(env, s) {
			return fmt.Errorf("%s inherited a secret of the provider's environment:\n%s", what, env)
		}
	}
	if !strings.Contains(env, "PATH=") {
		return fmt.Errorf("%s has no PATH: the environment was not read\n%s", what, env)
	}
	return nil
}

// TestAccCommand_localEnvironmentAllowlist runs `env` on a local workspace:
// the command sees PATH, HOME (the workspace root) and what it declares,
// and nothing else of the provider's environment, TF_VAR_* inputs and
// tokens included.
func TestAccCommand_localEnvironmentAllowlist(t *testing.T) {
	secrets := setSecretEnv(t)
	env := newTestEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{{
			Config: env.config(`
resource "sandbox_command" "c" {
  workspace_id = sandbox_workspace.ws.id
  command      = ["env"]
  environment  = { DECLARED = "yes" }
}
`),
			Check: func(s *terraform.State) error {
				out := s.RootModule().Resources["sandbox_command.c"].Primary.Attributes["stdout"]
				if err := noSecretIn("a command on a local workspace", out, secrets); err != nil {
					return err
				}
				for _, want := range []string{"DECLARED=yes", "HOME=" + env.wsRoot()} {
					if !strings.Contains(out, want+"\n") {
						return fmt.Errorf("the command's environment lacks %s:\n%s", want, out)
					}
				}
				return nil
			},
		}},
	})
}

// TestAccS3Mount_helperEnvironmentAllowlist mounts a bucket on a local
// workspace and reads the rclone daemon's /proc/<pid>/environ: no TF_VAR_*
// input and no token of the provider's environment may be in it.
func TestAccS3Mount_helperEnvironmentAllowlist(t *testing.T) {
	fakes3.LookRclone(t)
	fakes3.RequireFUSE(t)
	secrets := setSecretEnv(t)
	srv := fakes3.Start(t, "bucket", map[string]string{"hello.txt": "hello\n"})
	env := newTestEnv(t)
	t.Cleanup(func() { fakes3.UnmountAllUnder(t, env.base) })
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{{
			Config:          s3MountConfig(env, srv, ""),
			ConfigVariables: s3Vars(srv),
			Check: func(*terraform.State) error {
				dir := filepath.Join(env.wsRoot(), "data")
				pids := fakes3.RclonePIDs(dir)
				if len(pids) == 0 {
					return fmt.Errorf("no rclone process serves %s", dir)
				}
				for _, pid := range pids {
					raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
					if err != nil {
						return err
					}
					text := string(bytes.ReplaceAll(raw, []byte{0}, []byte{'\n'}))
					if err := noSecretIn(fmt.Sprintf("rclone (pid %d)", pid), text, secrets); err != nil {
						return err
					}
				}
				return nil
			},
		}},
	})
}
