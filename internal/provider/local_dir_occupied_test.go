package provider

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// TestAccLocalDir_occupiedPathRefused: a new copy over a directory that
// already holds files (put there out of band) fails the plan on path and
// touches nothing; once they are moved away, the copy applies.
func TestAccLocalDir_occupiedPathRefused(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	env.writeSource("tree/a.txt", "a\n", 0o644)
	env.writeSource("tree/sub/b.txt", "b\n", 0o644)
	ws := env.config("")
	withCopy := env.config(`
resource "sandbox_local_dir" "proj" {
  workspace_id = sandbox_workspace.ws.id
  path         = "proj"
  source       = "` + filepath.Join(env.src, "tree") + `"
}
`)
	precious := func() string { return filepath.Join(env.wsRoot(), "proj", "mine", "keep.txt") }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{Config: ws},
			{
				PreConfig: func() {
					must(t, os.MkdirAll(filepath.Dir(precious()), 0o755))
					must(t, os.WriteFile(precious(), []byte("precious\n"), 0o644))
					must(t, os.WriteFile(filepath.Join(env.wsRoot(), "proj", "a.txt"), []byte("mine\n"), 0o644))
				},
				Config:      withCopy,
				ExpectError: errRe("already holds 2 file(s) this resource did not write"),
			},
			{
				PreConfig: func() {
					if b, err := os.ReadFile(precious()); err != nil || string(b) != "precious\n" {
						t.Fatalf("the refused copy touched %s: %q, %v", precious(), b, err)
					}
					if b, _ := os.ReadFile(filepath.Join(env.wsRoot(), "proj", "a.txt")); string(b) != "mine\n" {
						t.Fatalf("the refused copy overwrote a.txt: %q", b)
					}
					must(t, os.RemoveAll(filepath.Join(env.wsRoot(), "proj")))
				},
				Config: withCopy,
				Check: func(*terraform.State) error {
					return expectFile(filepath.Join(env.wsRoot(), "proj", "sub", "b.txt"), "b\n", 0o644)
				},
			},
		},
	})
}
