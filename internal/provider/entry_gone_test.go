package provider

import (
	"fmt"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// An entry whose workspace_id names a workspace that no longer exists (here
// a local one whose directory is gone) fails the plan on workspace_id; it
// used to plan a creation that failed at apply.
func TestAccEntries_goneWorkspaceRefusedAtPlan(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	id := "local:0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11:" + filepath.Join(env.base, "gone")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
resource "sandbox_dir" "d" {
  workspace_id = %q
  path         = "d"
}
`, env.base, id),
			PlanOnly: true,
			ExpectError: regexp.MustCompile(`Workspace ` + regexp.QuoteMeta(id) + ` no longer exists\s+with sandbox_dir.d,[\s\S]*?workspace_id\s+=\s+"` +
				regexp.QuoteMeta(id) + `"`),
		}},
	})
}
