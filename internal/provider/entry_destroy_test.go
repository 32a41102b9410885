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

// Destroying entries (while the workspace stays) removes exactly what they
// wrote: a directory holding someone else's file is left in place.
func TestAccEntries_destroyRemovesOnlyWhatWasWritten(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	env.writeSource("tree/a.txt", "a", 0o644)
	env.writeSource("tree/sub/b.txt", "b", 0o644)
	entries := fmt.Sprintf(`
resource "sandbox_dir" "empty" {
  workspace_id = sandbox_workspace.ws.id
  path         = "scratch"
}
resource "sandbox_dir" "shared" {
  workspace_id = sandbox_workspace.ws.id
  path         = "shared"
}
resource "sandbox_file" "f" {
  workspace_id = sandbox_workspace.ws.id
  path         = "notes/todo.txt"
  content      = "todo"
}
resource "sandbox_local_dir" "copy" {
  workspace_id = sandbox_workspace.ws.id
  path         = "copy"
  source       = %q
}
`, filepath.Join(env.src, "tree"))
	exists := func(rel string) bool {
		_, err := os.Lstat(filepath.Join(env.wsRoot(), rel))
		return err == nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{Config: env.config(entries)},
			{
				// Someone else writes into two of the entries, then every
				// entry is removed from the configuration.
				PreConfig: func() {
					must(t, os.WriteFile(filepath.Join(env.wsRoot(), "shared/agent.log"), []byte("log"), 0o644))
					must(t, os.WriteFile(filepath.Join(env.wsRoot(), "copy/sub/agent-notes.txt"), []byte("mine"), 0o644))
				},
				Config: env.config(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("sandbox_dir.empty", plancheck.ResourceActionDestroy),
						plancheck.ExpectResourceAction("sandbox_file.f", plancheck.ResourceActionDestroy),
						plancheck.ExpectResourceAction("sandbox_local_dir.copy", plancheck.ResourceActionDestroy),
					},
				},
				Check: func(*terraform.State) error {
					for _, gone := range []string{"scratch", "notes/todo.txt", "copy/a.txt", "copy/sub/b.txt"} {
						if exists(gone) {
							return fmt.Errorf("%s survived the destroy of its resource", gone)
						}
					}
					for _, kept := range []string{"shared/agent.log", "copy/sub/agent-notes.txt"} {
						if !exists(kept) {
							return fmt.Errorf("%s, written by someone else, was lost", kept)
						}
					}
					return nil
				},
			},
		},
	})
}
