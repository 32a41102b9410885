package provider

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// A command, data source or ephemeral sandbox_exec with `user` against a
// local workspace that exists fails the plan on `user` (it used to fail
// only at apply, or at the read of the data source), and nothing runs.
func TestAccCommand_localUserRefusedAtPlan(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	onUser := func(typ, name string) *regexp.Regexp {
		return regexp.MustCompile(`A local workspace cannot run commands as another user\s+with ` + regexp.QuoteMeta(typ+"."+name) +
			`,[\s\S]*?user\s+=\s+"agent"[\s\S]*?is a local workspace`)
	}
	base := env.config("")
	notRun := func(*terraform.State) error {
		if _, err := os.Stat(filepath.Join(env.wsRoot(), "ran")); !os.IsNotExist(err) {
			t.Errorf("the command ran (stat: %v)", err)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{Config: base},
			{
				Config: base + `
resource "sandbox_command" "c" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "touch ran"
  user         = "agent"
}
`,
				PlanOnly:    true,
				ExpectError: onUser("sandbox_command", "c"),
			},
			{
				Config: base + `
data "sandbox_exec" "x" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "touch ran"
  user         = "agent"
}
`,
				PlanOnly:    true,
				ExpectError: onUser("data.sandbox_exec", "x"),
			},
			{
				Config: base + `
ephemeral "sandbox_exec" "x" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "touch ran"
  user         = "agent"
}
`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`A local workspace cannot run commands as another user`),
			},
			{Config: base, Check: notRun},
		},
	})
}
