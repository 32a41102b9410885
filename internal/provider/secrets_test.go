package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
)

// attrEquals checks one attribute of a resource in state.
func attrEquals(addr, key, want string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		r, ok := s.RootModule().Resources[addr]
		if !ok {
			return fmt.Errorf("%s is not in state", addr)
		}
		if got := r.Primary.Attributes[key]; got != want {
			return fmt.Errorf("%s.%s = %q, want %q", addr, key, got, want)
		}
		return nil
	}
}

func commandWOConfig(env *testEnv, secret string, version int) string {
	return execConfig(env, `{ PLAIN = "visible" }`, fmt.Sprintf(`
resource "sandbox_command" "wo" {
  workspace_id           = sandbox_dir.tasks.workspace_id
  shell                  = "echo \"token=$API_TOKEN plain=$PLAIN\"; echo \"$API_TOKEN\" >&2; printf %%s \"$API_TOKEN\" > tasks/a/got.txt"
  environment_wo         = { API_TOKEN = %q }
  environment_wo_version = %d
}
`, secret, version))
}

// TestAccCommand_environmentWO runs a command with a write-only
// environment: the value reaches the process (it writes it to a file), is
// REDACTED in the recorded output, is nowhere in state, and a new version
// runs the command again.
func TestAccCommand_environmentWO(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	const secret, rotated = "wo-token-3f9d1c7a", "wo-token-rotated-8e2b"
	gotFile := func(want string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			b, err := os.ReadFile(filepath.Join(env.wsRoot(), "tasks/a/got.txt"))
			if err != nil || string(b) != want {
				return fmt.Errorf("the command wrote %q (%w), want %q", b, err, want)
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: commandWOConfig(env, secret, 1),
				Check: resource.ComposeAggregateTestCheckFunc(
					gotFile(secret),
					attrEquals("sandbox_command.wo", "stdout", "token=REDACTED plain=visible\n"),
					attrEquals("sandbox_command.wo", "stderr", "REDACTED\n"),
					resource.TestCheckNoResourceAttr("sandbox_command.wo", "environment_wo"),
					noSecretInState(secret),
				),
			},
			{
				// The value alone changed: write-only, so nothing to do.
				Config:   commandWOConfig(env, rotated, 1),
				PlanOnly: true,
			},
			{
				Config: commandWOConfig(env, rotated, 2),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_command.wo", plancheck.ResourceActionReplace),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(gotFile(rotated), noSecretInState(secret, rotated)),
			},
		},
	})
}

// TestAccCommand_environmentWORefusals checks the plan-time refusals, each
// on its attribute, and that a failing command's error has the value
// REDACTED.
func TestAccCommand_environmentWORefusals(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	step := func(body string, want ...string) resource.TestStep {
		return resource.TestStep{Config: execConfig(env, "{}", body), ExpectError: loose(want...)}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			step(`
resource "sandbox_command" "twice" {
  workspace_id   = sandbox_workspace.ws.id
  shell          = "true"
  environment    = { K = "a" }
  environment_wo = { K = "b" }
}`, "Environment variable given twice", "environment_wo = { K", "K is in both environment and environment_wo"),
			step(`
resource "sandbox_command" "version" {
  workspace_id           = sandbox_workspace.ws.id
  shell                  = "true"
  environment_wo_version = 1
}`, "environment_wo_version without environment_wo"),
			step(`
resource "sandbox_workspace" "local_wo" {
  local {}
  environment_wo = { K = "b" }
}`, "environment_wo needs a Docker workspace"),
			step(`
resource "sandbox_command" "fails" {
  workspace_id   = sandbox_dir.tasks.workspace_id
  shell          = "echo \"bad token $K\" >&2; exit 4"
  environment_wo = { K = "fail-secret-0c1d" }
}`, "exited with code 4", "bad token REDACTED"),
		},
	})
}

// TestAccEphemeralExec_toWriteOnly fetches a value from inside the
// workspace with the ephemeral sandbox_exec and writes it with content_wo:
// the file holds it, the state does not, and the sensitive environment of
// the ephemeral command reached it.
func TestAccEphemeralExec_toWriteOnly(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	const token, prefix = "eph-token-5a7c9e", "eph-prefix-2b4d"
	body := fmt.Sprintf(`
ephemeral "sandbox_exec" "token" {
  workspace_id = sandbox_dir.tasks.workspace_id
  shell        = "printf '%%s-%%s' \"$PREFIX\" %s"
  environment  = { PREFIX = %q }
}
resource "sandbox_file" "token" {
  workspace_id       = sandbox_dir.tasks.workspace_id
  path               = "tasks/token"
  content_wo         = ephemeral.sandbox_exec.token.stdout
  content_wo_version = 1
  permissions        = "0600"
}
`, token, prefix)
	want := prefix + "-" + token
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{{
			Config: execConfig(env, "{}", body),
			Check: resource.ComposeAggregateTestCheckFunc(
				checkWorkspaceFile(env, "tasks/token", want, 0o600),
				noSecretInState(token, prefix),
			),
		}, {
			Config:      execConfig(env, "{}", strings.Replace(body, `shell        = "printf`, `shell        = "echo \"no $PREFIX\" >&2; exit 9; printf`, 1)),
			ExpectError: loose("exited with code 9", "no REDACTED"),
		}},
	})
}

// TestAccDockerWorkspace_environmentWO gives a container a write-only
// environment variable: the container has it, commands run in it see it
// (sandbox_command and data sandbox_exec) with their output redacted, and
// it is in no label, not in state and not
// in environment after an import.
func TestAccDockerWorkspace_environmentWO(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	const secret = "ws-wo-secret-71c3a9"
	ws := fmt.Sprintf(`environment = { PLAIN = "p" }
  environment_wo = { API_KEY = %q }
  environment_wo_version = 1`, secret)
	body := `
resource "sandbox_command" "echo" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "echo \"key=$API_KEY plain=$PLAIN\""
}
data "sandbox_exec" "probe" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "echo \"$API_KEY\" >&2"
}
`
	noLabel := func(s *terraform.State) error {
		c, err := dockertest.Client().ContainerInspect(context.Background(), env.container(s), client.ContainerInspectOptions{})
		if err != nil {
			return err
		}
		for k, v := range c.Container.Config.Labels {
			if strings.Contains(k+v, secret) {
				return fmt.Errorf("label %s holds the secret", k)
			}
		}
		if !strings.Contains(c.Container.Config.Labels["sandbox.spec"], `"secret_environment":["API_KEY"]`) {
			return fmt.Errorf("sandbox.spec does not name API_KEY: %s", c.Container.Config.Labels["sandbox.spec"])
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{
				Config: env.config(ws, body),
				Check: resource.ComposeAggregateTestCheckFunc(
					env.expectSh(`echo "$API_KEY"`, secret),
					attrEquals("sandbox_command.echo", "stdout", "key=REDACTED plain=p\n"),
					attrEquals("data.sandbox_exec.probe", "stderr", "REDACTED\n"),
					noLabel,
					noSecretInState(secret),
				),
			},
			{
				ResourceName: "sandbox_workspace.ws", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"keep_on_destroy", "docker.pull_policy", "environment_wo_version"},
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					for _, st := range states {
						for k, v := range st.Attributes {
							if strings.Contains(v, secret) || strings.HasPrefix(k, "environment.API_KEY") {
								return fmt.Errorf("the import read the secret back into %s", k)
							}
						}
					}
					return nil
				},
			},
			{
				Config: env.config(strings.Replace(ws, "version = 1", "version = 2", 1), body),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionReplace),
				}},
				Check: env.expectSh(`echo "$API_KEY"`, secret),
			},
		},
	})
}
