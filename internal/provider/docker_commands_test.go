package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// Commands in a container: the user is passed natively to docker exec, the
// working directory is below the root, the workspace and command
// environments are merged, and a command resource runs once per trigger.
func TestAccDockerCommands(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	body := func(trigger string) string {
		return fmt.Sprintf(`
resource "sandbox_dir" "tasks" {
  workspace_id = sandbox_workspace.ws.id
  path         = "tasks/a"
  permissions  = "0777"
}
data "sandbox_exec" "probe" {
  workspace_id = sandbox_dir.tasks.workspace_id
  shell        = "id -un; pwd; echo \"$GREETING/$WHO\"; echo warn >&2"
  user         = "agent"
  working_dir  = "tasks/a"
  environment  = { WHO = "command" }
}
resource "sandbox_command" "setup" {
  workspace_id = sandbox_dir.tasks.workspace_id
  command      = ["sh", "-c", "echo run >> runs.log; wc -l < runs.log"]
  working_dir  = "tasks/a"
  triggers     = { v = %q }
}
`, trigger)
	}
	ws := `environment = { GREETING = "hello" }
  users       = [{ name = "agent" }]`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{
				Config: env.config(ws, body("1")),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.sandbox_exec.probe", tfjsonpath.New("stdout"), knownvalue.StringExact("agent\n/workspace/tasks/a\nhello/command\n")),
					statecheck.ExpectKnownValue("data.sandbox_exec.probe", tfjsonpath.New("stderr"), knownvalue.StringExact("warn\n")),
					statecheck.ExpectKnownValue("data.sandbox_exec.probe", tfjsonpath.New("exit_code"), knownvalue.Int64Exact(0)),
					statecheck.ExpectKnownValue("sandbox_command.setup", tfjsonpath.New("stdout"), knownvalue.StringExact("1\n")),
				},
				Check: env.expectSh("cat /workspace/tasks/a/runs.log", "run"),
			},
			{
				Config: env.config(ws, body("2")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("sandbox_command.setup", plancheck.ResourceActionReplace)},
				},
				Check: resource.ComposeTestCheckFunc(
					env.expectSh("cat /workspace/tasks/a/runs.log", "run\nrun"),
					func(s *terraform.State) error {
						if got := s.RootModule().Resources["sandbox_command.setup"].Primary.Attributes["stdout"]; got != "2\n" {
							return fmt.Errorf("second run printed %q, want \"2\\n\"", got)
						}
						return nil
					},
				),
			},
		},
	})
}

func TestAccDockerCommands_failures(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	for name, c := range map[string]struct{ args, want string }{
		"non-zero": {`shell = "echo boom >&2; exit 4"`, `exited with code 4`},
		"timeout": {`shell = "sleep 30"
  timeout = 1`, `did not finish within 1 seconds`},
		"unknown user": {`shell = "true"
  user = "nobody-such"`, `nobody-such`},
	} {
		t.Run(name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				TerraformVersionChecks:   requireTF111,
				Steps: []resource.TestStep{{
					Config: env.config("", fmt.Sprintf(`
data "sandbox_exec" "x" {
  workspace_id = sandbox_workspace.ws.id
  %s
}
`, c.args)),
					ExpectError: errRe(c.want),
				}},
			})
		})
	}
}
