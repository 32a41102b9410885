package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/edits"
)

// TestAccDockerLocalDir_digestCacheSeesEdits: once a no-op plan has filled
// the file helper's digest cache inside the container (with entries old
// enough to be trusted), the next plan still sees a copied file rewritten
// right after, one rewritten with its times put back, and one swapped for
// another inode of the same size and times: each plans an update, whose
// apply puts the source's content back. The cache lives outside the root.
func TestAccDockerLocalDir_digestCacheSeesEdits(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("editing the container's files from the host (/proc/<pid>/root) needs root")
	}
	env := newDockerEnv(t)
	files := map[string]string{"now.txt": "aaaa", "back.txt": "bbbb", "sub/swap.txt": "cccc", "keep.txt": "keep"}
	for rel, c := range files {
		env.writeSource(filepath.Join("tree", rel), c, 0o644)
	}
	cfg := env.config("", fmt.Sprintf(`
resource "sandbox_local_dir" "d" {
  workspace_id = sandbox_workspace.ws.id
  path         = "skills"
  source       = %q
}
`, filepath.Join(env.src, "tree")))
	var copyDir string // the copy in the container, seen from the host
	edited := func(edit func(), rel, want string) resource.TestStep {
		return editedPlan(cfg, "sandbox_local_dir.d", edit, env.expectSh("cat /workspace/skills/"+rel, want))
	}
	settled := settledPlan(cfg)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{Config: cfg, Check: env.hostPathOf("/workspace/skills", &copyDir)},
			settled,
			edited(func() { edits.Rewrite(t, filepath.Join(copyDir, "now.txt"), "AAAA") }, "now.txt", "aaaa"),
			settled,
			edited(func() { edits.RewriteKeepTimes(t, filepath.Join(copyDir, "back.txt"), "BBBB") }, "back.txt", "bbbb"),
			settled,
			edited(func() { edits.SwapInode(t, filepath.Join(copyDir, "sub/swap.txt"), "CCCC") }, "sub/swap.txt", "cccc"),
			env.onlyCacheWritten(cfg, "/workspace", "skills"),
		},
		CheckDestroy: env.checkGone,
	})
}
