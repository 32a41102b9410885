package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// A host source deleted after the apply (a CI checkout that changed) never
// blocks the destroy: the refresh keeps the entries, and the destroy
// removes them from the workspace. Plans show no change until a create or
// a new source needs it.
func TestAccSourceGone_destroy(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	env.writeSource("gone/a.txt", "alpha\n", 0o644)
	env.writeSource("gone/tree/b.txt", "beta\n", 0o644)
	cfg := env.config(fmt.Sprintf(`
resource "sandbox_file" "f" {
  workspace_id = sandbox_workspace.ws.id
  path         = "a.txt"
  source       = %q
}

resource "sandbox_local_dir" "d" {
  workspace_id = sandbox_workspace.ws.id
  path         = "tree"
  source       = %q
}
`, filepath.Join(env.src, "gone/a.txt"), filepath.Join(env.src, "gone/tree")))
	var root string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: func(*terraform.State) error {
					root = env.wsRoot()
					return expectFile(filepath.Join(root, "tree/b.txt"), "beta\n", 0o644)
				},
			},
			{
				// The plan keeps what was copied: no change, a warning.
				PreConfig: func() {
					if err := os.RemoveAll(filepath.Join(env.src, "gone")); err != nil {
						t.Fatal(err)
					}
				},
				Config:   cfg,
				PlanOnly: true,
			},
			{
				Config:  cfg,
				Destroy: true,
				Check: func(*terraform.State) error {
					if _, err := os.Lstat(root); !os.IsNotExist(err) {
						return fmt.Errorf("workspace root %s still there after destroy: %w", root, err)
					}
					return nil
				},
			},
		},
	})
}
