package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/local"
)

// A local workspace of a provider not running as root refuses, at plan
// time and on the attribute, an owner other than the provider's own user,
// for entries and for the root.
func TestAccOwner_localRefusesOtherUsers(t *testing.T) {
	env := newTestEnv(t)
	defer local.ActAsUIDForTests(65534)()
	refused := regexp.MustCompile(`(?s)Owner not possible in a local workspace.*uid 65534.*needs the provider to run as root`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{Config: env.config("")},
			{
				// The workspace exists, so its id is known: the plan fails.
				PlanOnly: true,
				Config: env.config(`
resource "sandbox_file" "f" {
  workspace_id = sandbox_workspace.ws.id
  path         = "f.txt"
  content      = "x"
  owner        = "root"
}
`),
				ExpectError: regexp.MustCompile(`(?s)Owner not possible in a local workspace.*with sandbox_file.f,.*owner\s+= "root"`),
			},
			{
				Config: env.config(`
resource "sandbox_dir" "d" {
  workspace_id = sandbox_workspace.ws.id
  path         = "d"
  owner        = "0"
}
`),
				PlanOnly:    true,
				ExpectError: refused,
			},
			{
				Config: `
provider "sandbox" {
  local_base_dir = "` + env.base + `"
}
resource "sandbox_workspace" "other" {
  local {}
  root_owner = "root"
}
`,
				ExpectError: regexp.MustCompile(`(?s)Root owner not possible in a local workspace.*needs the provider to run as root`),
			},
		},
	})
}
