package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// TestAccEntries_pathSpellingIsNoChange re-spells the paths of a file and
// a directory declared with create_before_destroy. Each re-spelling must
// plan an in-place update (not a replacement, whose old copy's destroy
// would delete what the new copy just wrote), and the file and directory
// must still be there, unchanged, after every apply.
func TestAccEntries_pathSpellingIsNoChange(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	cfg := func(filePath, dirPath string) string {
		return env.config(fmt.Sprintf(`
resource "sandbox_file" "f" {
  workspace_id = sandbox_workspace.ws.id
  path         = %q
  content      = "keep me\n"
  permissions  = "0640"
  lifecycle {
    create_before_destroy = true
  }
}

resource "sandbox_dir" "d" {
  workspace_id = sandbox_workspace.ws.id
  path         = %q
  lifecycle {
    create_before_destroy = true
  }
}
`, filePath, dirPath))
	}
	stillThere := func(*terraform.State) error {
		root := env.wsRoot()
		if err := expectFile(filepath.Join(root, "conf", "a.txt"), "keep me\n", 0o640); err != nil {
			return err
		}
		if fi, err := os.Stat(filepath.Join(root, "cache")); err != nil || !fi.IsDir() {
			return fmt.Errorf("directory cache is gone: %w", err)
		}
		return nil
	}
	step := func(filePath, dirPath string) resource.TestStep {
		return resource.TestStep{
			Config: cfg(filePath, dirPath),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("sandbox_file.f", plancheck.ResourceActionUpdate),
				plancheck.ExpectResourceAction("sandbox_dir.d", plancheck.ResourceActionUpdate),
			}},
			Check: stillThere,
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{Config: cfg("conf/a.txt", "cache"), Check: stillThere},
			step("./conf/a.txt", "cache/"),
			step("conf//a.txt", "./cache"),
			step(`conf\a.txt`, "cache//"),
			{
				// Another place is still a replacement.
				Config: cfg("conf/b.txt", "cache"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_file.f", plancheck.ResourceActionCreateBeforeDestroy),
				}},
				Check: func(*terraform.State) error {
					root := env.wsRoot()
					if _, err := os.Stat(filepath.Join(root, "conf", "a.txt")); !os.IsNotExist(err) {
						return fmt.Errorf("the old file conf/a.txt was not removed: %w", err)
					}
					return expectFile(filepath.Join(root, "conf", "b.txt"), "keep me\n", 0o640)
				},
			},
		},
	})
}
