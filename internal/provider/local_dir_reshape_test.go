package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// testCopyReshaped: a source file that becomes a directory, and a source
// directory that becomes a file, are copied over the previous copy (the
// copy owns its paths): the stale file or directory goes first.
func testCopyReshaped(t *testing.T, o *outOfBand) {
	o.env.writeSource("tree/a", "a\n", 0o644)
	o.env.writeSource("tree/b/x", "x\n", 0o644)
	cfg := o.config(fmt.Sprintf(`
resource "sandbox_local_dir" "tree" {
  workspace_id = sandbox_workspace.ws.id
  path         = "tree"
  source       = %q
}
`, filepath.Join(o.env.src, "tree")))
	o.test(
		resource.TestStep{Config: cfg, Check: resource.ComposeTestCheckFunc(o.capture, o.expect("cat tree/a tree/b/x", "a\nx"))},
		resource.TestStep{
			PreConfig: func() {
				must(t, os.Remove(filepath.Join(o.env.src, "tree/a")))
				must(t, os.RemoveAll(filepath.Join(o.env.src, "tree/b")))
				o.env.writeSource("tree/a/y", "y\n", 0o644)
				o.env.writeSource("tree/b", "b\n", 0o644)
			},
			Config: cfg,
			Check:  o.expect("cat tree/a/y tree/b && find tree | sort", "y\nb\ntree\ntree/a\ntree/a/y\ntree/b"),
		},
	)
}

func TestAccLocalDir_sourceReshaped(t *testing.T) { testCopyReshaped(t, localOutOfBand(t)) }

func TestAccDockerLocalDir_sourceReshaped(t *testing.T) { testCopyReshaped(t, dockerOutOfBand(t)) }
