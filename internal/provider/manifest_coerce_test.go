package provider

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// TestAccManifestLaxPermissions applies manifest JSON whose permission
// numbers come as the Python SDK's models accept them (pydantic lax mode):
// true is 1, "7.0" and 5.0 are 7 and 5, "yes" is true.
func TestAccManifestLaxPermissions(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	doc := `{"entries": {
		"run.sh": {"type": "file", "content": "echo hi\n", "permissions": {"owner": true, "group": 5, "other": 5}},
		"cache": {"type": "dir", "permissions": {"owner": "7.0", "group": true, "other": 5.0, "directory": "yes"}}}}`
	mode := func(rel string, want uint32) resource.TestCheckFunc {
		return func(*terraform.State) error {
			got, err := fileMode(filepath.Join(env.wsRoot(), rel))
			if err != nil {
				return err
			}
			if uint32(got) != want {
				return fmt.Errorf("%s has mode %04o, want %04o", rel, got, want)
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   requireTF111,
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: manifestConfig(env, doc),
			Check: resource.ComposeTestCheckFunc(
				func(*terraform.State) error {
					return expectFile(filepath.Join(env.wsRoot(), "run.sh"), "echo hi\n", 0o155)
				},
				mode("cache", 0o715),
				resource.TestCheckResourceAttr("sandbox_manifest.m", "entries.run.sh.type", "file"),
			),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		}},
	})
}
