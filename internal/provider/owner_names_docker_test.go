package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// An entry owner or a command user that names no account of an existing
// Docker workspace (not in users, not root, not numeric, not in the
// image's /etc/passwd) fails the plan on its attribute, with the fix; a
// user of the image (nobody) still works.
func TestAccDockerOwner_unknownNamesFailAtPlan(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	users := `users = [{ name = "agent" }]`
	unknown := func(attr string) *regexp.Regexp {
		return regexp.MustCompile(`(?s)Unknown user ghost.*` + attr + `\s+= "ghost".*Add it to the workspace's\s+users, or use a\s+numeric uid`)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{Config: env.config(users, "")},
			{
				Config: env.config(users, `
resource "sandbox_file" "bad" {
  workspace_id = sandbox_workspace.ws.id
  path         = "bad.txt"
  content      = "x"
  owner        = "ghost"
}
`),
				PlanOnly:    true,
				ExpectError: unknown("owner"),
			},
			{
				Config: env.config(users, `
resource "sandbox_command" "bad" {
  workspace_id = sandbox_workspace.ws.id
  user         = "ghost"
  shell        = "true"
}
`),
				PlanOnly:    true,
				ExpectError: unknown("user"),
			},
			{
				// The image's own account keeps working, for both.
				Config: env.config(users, `
resource "sandbox_file" "img" {
  workspace_id = sandbox_workspace.ws.id
  path         = "img.txt"
  content      = "x"
  owner        = "nobody"
}

resource "sandbox_command" "img" {
  workspace_id = sandbox_workspace.ws.id
  user         = "nobody"
  shell        = "id -u"
}
`),
				Check: resource.ComposeTestCheckFunc(
					func(s *terraform.State) error {
						c := env.container(s)
						want, err := sh(c, "id -u nobody")
						if err != nil {
							return err
						}
						return resource.ComposeTestCheckFunc(
							resource.TestCheckResourceAttr("sandbox_command.img", "stdout", strings.TrimSpace(want)+"\n"),
							env.expectSh("stat -c '%u' /workspace/img.txt", strings.TrimSpace(want)),
						)(s)
					},
				),
			},
		},
	})
}
