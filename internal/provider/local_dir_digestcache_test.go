package provider

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/digestcache"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/edits"
)

// TestAccLocalDir_digestCacheSeesEdits: once a no-op plan has filled the
// digest cache (and its entries are old enough to be trusted), the next
// plan still sees a source file rewritten in the same second, one whose
// modification time was put back, and one swapped for another inode of the
// same size and times (the planned tree_sha256 is the edited tree's), and
// a workspace file edited with its time put back is copied again.
func TestAccLocalDir_digestCacheSeesEdits(t *testing.T) {
	t.Setenv(digestcache.Env, t.TempDir())
	env := newTestEnv(t)
	files := map[string]string{"now.txt": "aaaa", "back.txt": "bbbb", "sub/swap.txt": "cccc", "keep.txt": "keep"}
	modes := map[string]os.FileMode{}
	for rel, c := range files {
		env.writeSource(filepath.Join("tree", rel), c, 0o644)
		modes[rel] = 0o644
	}
	srcDir := filepath.Join(env.src, "tree")
	edited := map[string]string{"now.txt": "AAAA", "back.txt": "BBBB", "sub/swap.txt": "CCCC", "keep.txt": "keep"}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{Config: localDirConfig(env, srcDir), Check: checkTree(env, files, modes)},
			{
				// Fill the cache with entries it trusts.
				PreConfig: func() { edits.Settle(digestcache.Granularity) },
				Config:    localDirConfig(env, srcDir),
				PlanOnly:  true,
			},
			{
				PreConfig: func() {
					edits.Rewrite(t, filepath.Join(srcDir, "now.txt"), "AAAA")
					edits.RewriteKeepTimes(t, filepath.Join(srcDir, "back.txt"), "BBBB")
					edits.SwapInode(t, filepath.Join(srcDir, "sub/swap.txt"), "CCCC")
					edits.RewriteKeepTimes(t, filepath.Join(env.wsRoot(), "skills", "keep.txt"), "KEEP")
				},
				Config: localDirConfig(env, srcDir),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_local_dir.d", plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue("sandbox_local_dir.d", tfjsonpath.New("tree_sha256"), knownvalue.StringExact(treeDigest(edited))),
				}},
				Check: checkTree(env, edited, modes),
			},
		},
	})
}

// TestAccLocalDir_digestCacheInsideSource: a digest cache directory inside
// the copied source fails the plan on source, naming the variable and the
// fix, and nothing is written into the source; with the cache moved out,
// the same configuration applies.
func TestAccLocalDir_digestCacheInsideSource(t *testing.T) {
	env := newTestEnv(t)
	env.writeSource(filepath.Join("tree", "a.txt"), "aaaa", 0o644)
	srcDir := filepath.Join(env.src, "tree")
	t.Setenv(digestcache.Env, filepath.Join(srcDir, ".cache"))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{
				Config:      localDirConfig(env, srcDir),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)source.*SANDBOX_DIGEST_CACHE.*lies inside.*outside every source and workspace`),
			},
			{
				PreConfig: func() {
					if _, err := os.Lstat(filepath.Join(srcDir, ".cache")); !os.IsNotExist(err) {
						t.Fatalf("the refused plan wrote the cache into the source: %v", err)
					}
					t.Setenv(digestcache.Env, t.TempDir())
				},
				Config: localDirConfig(env, srcDir),
				Check:  checkTree(env, map[string]string{"a.txt": "aaaa"}, map[string]os.FileMode{"a.txt": 0o644}),
			},
		},
	})
}
