package provider

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// testTreeFileTypeChanged changes, out of band, what stands where files of
// a copied tree go. A copy makes its directory hold exactly its source, so
// the next apply puts the files back (the plan's `changes` says what it
// removes) when nothing but the copy's own content or empty directories
// must go: an empty directory tree where a file goes (whose apply used to
// fail with "is a directory" every time), a directory holding a file, and
// a file where a directory goes. A directory holding what a copy never
// removes (a FIFO) fails the apply naming the path, and stays.
func testTreeFileTypeChanged(t *testing.T, o *outOfBand) {
	o.env.writeSource("tree/a.txt", "a\n", 0o644)
	o.env.writeSource("tree/sub/b.txt", "b\n", 0o644)
	cfg := o.config(fmt.Sprintf(`
resource "sandbox_local_dir" "tree" {
  workspace_id = sandbox_workspace.ws.id
  path         = "tree"
  source       = %q
}
`, filepath.Join(o.env.src, "tree")))
	const addr = "sandbox_local_dir.tree"
	restored := resource.ComposeTestCheckFunc(
		o.expect("cat tree/a.txt tree/sub/b.txt && stat -c %F tree/a.txt tree/sub", "a\nb\nregular file\ndirectory"),
		resource.TestCheckResourceAttr(addr, "file_count", "2"),
	)
	o.test(
		resource.TestStep{Config: cfg, Check: resource.ComposeTestCheckFunc(o.capture, restored)},
		resource.TestStep{
			PreConfig: o.do("rm tree/a.txt && mkdir -p tree/a.txt/x/y"),
			Config:    cfg,
			Check: resource.ComposeTestCheckFunc(restored,
				resource.TestCheckResourceAttr(addr, "changes.#", "1"),
				resource.TestCheckResourceAttr(addr, "changes.0", "add a.txt")),
		},
		resource.TestStep{
			PreConfig: o.do("rm tree/a.txt && mkdir tree/a.txt && echo theirs > tree/a.txt/keep"),
			Config:    cfg,
			Check: resource.ComposeTestCheckFunc(restored,
				resource.TestCheckResourceAttr(addr, "changes.#", "2"),
				resource.TestCheckResourceAttr(addr, "changes.0", "add a.txt"),
				resource.TestCheckResourceAttr(addr, "changes.1", "remove a.txt/keep")),
		},
		resource.TestStep{
			PreConfig: o.do("rm -r tree/sub && echo theirs > tree/sub"),
			Config:    cfg,
			Check: resource.ComposeTestCheckFunc(restored,
				resource.TestCheckResourceAttr(addr, "changes.0", "remove sub"),
				resource.TestCheckResourceAttr(addr, "changes.1", "add sub/b.txt")),
		},
		resource.TestStep{
			PreConfig:   o.do("rm tree/a.txt && mkdir tree/a.txt && mkfifo tree/a.txt/pipe"),
			Config:      cfg,
			ExpectError: errRe("a directory that is not empty stands where this file goes; move or delete it in the workspace"),
		},
		resource.TestStep{
			PreConfig: o.do("test -p tree/a.txt/pipe && rm -r tree/a.txt"),
			Config:    cfg,
			Check:     restored,
		},
		resource.TestStep{Config: cfg, PlanOnly: true},
	)
}

func TestAccLocalDir_treeFileTypeChanged(t *testing.T) { testTreeFileTypeChanged(t, localOutOfBand(t)) }

func TestAccDockerLocalDir_treeFileTypeChanged(t *testing.T) {
	t.Parallel()
	testTreeFileTypeChanged(t, dockerOutOfBand(t))
}
