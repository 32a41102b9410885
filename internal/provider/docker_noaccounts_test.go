package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
)

// A workspace on an image with no /etc/passwd nor /etc/group (a static Go
// or distroless image) and no users: root is uid 0 without an account
// database. The workspace is made, a file lands, and the next plan is empty
// (the root read back as "root", not "0").
func TestAccDockerNoAccounts_workspaceAndFile(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	image := dockertest.RequireNoAccountsImage(t)
	cfg := fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}

resource "sandbox_workspace" "ws" {
  docker {
    image       = %q
    pull_policy = "never"
  }
}

resource "sandbox_file" "f" {
  workspace_id = sandbox_workspace.ws.id
  path         = "notes/hello.txt"
  content      = "hello\n"
  permissions  = "0640"
}
`, env.base, image)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "root_owner", "root"),
					env.expectSh("test ! -e /etc/passwd && test ! -e /etc/group && echo no-accounts", "no-accounts"),
					env.expectSh("cat /workspace/notes/hello.txt && stat -c '%u:%g %a' /workspace /workspace/notes/hello.txt",
						"hello\n0:0 755\n0:0 640"),
				),
			},
			{
				Config:           cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
		},
	})
}
