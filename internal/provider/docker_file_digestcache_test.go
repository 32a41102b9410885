package provider

import (
	"context"
	"fmt"
	"os"
	"path"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/digestcache"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/edits"
)

// hostPathOf is a check that sets *dst to where the host sees p, a path
// inside the workspace's container (/proc/<pid>/root/p).
func (e *dockerEnv) hostPathOf(p string, dst *string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		info, err := dockertest.Client().ContainerInspect(context.Background(), e.container(s), client.ContainerInspectOptions{})
		if err != nil {
			return err
		}
		*dst = path.Join(fmt.Sprintf("/proc/%d/root", info.Container.State.Pid), p)
		return nil
	}
}

// settledPlan is a no-op plan of cfg after the digest cache's granularity
// has passed, so the digests it caches are trusted by the next plan.
func settledPlan(cfg string) resource.TestStep {
	return resource.TestStep{
		PreConfig: func() { edits.Settle(digestcache.Granularity) },
		Config:    cfg,
		PlanOnly:  true,
	}
}

// editedPlan makes edit, then plans an update of addr whose apply passes
// check (the content put back).
func editedPlan(cfg, addr string, edit func(), check resource.TestCheckFunc) resource.TestStep {
	return resource.TestStep{
		PreConfig: edit,
		Config:    cfg,
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
		}},
		Check: check,
	}
}

// onlyCacheWritten is a step whose plan of cfg is empty, after which the
// file helper's digest cache holds one file and `ls -A dirs` in the
// container prints want: the plans wrote their cache and nothing in the
// workspace. (Not PlanOnly: a plan-only step runs no Check.)
func (e *dockerEnv) onlyCacheWritten(cfg, dirs, want string) resource.TestStep {
	return resource.TestStep{
		Config:           cfg,
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		Check: resource.ComposeTestCheckFunc(
			e.expectSh("ls /.sandbox-fs-digests | grep -c json", "1"),
			e.expectSh("ls -A "+dirs, want),
		),
	}
}

// TestAccDockerFile_digestCacheSeesEdits: the refresh of a sandbox_file in
// a container takes its digest from the file helper's cache once a no-op
// plan has filled it (a digest planted there plans an update of the
// unchanged file), and the next plan still sees the file rewritten
// right after, rewritten with its times put back, and swapped for another
// inode of the same size and times: each plans an update of the file,
// whose apply puts its content back. The cache (one file for this entry)
// lives outside the root.
func TestAccDockerFile_digestCacheSeesEdits(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("editing the container's files from the host (/proc/<pid>/root) needs root")
	}
	env := newDockerEnv(t)
	cfg := env.config("", `
resource "sandbox_file" "f" {
  workspace_id = sandbox_workspace.ws.id
  path         = "notes/f.txt"
  content      = "aaaa"
}
`)
	var file, cache string // the file and the helper's cache in the container, seen from the host
	put := env.expectSh("cat /workspace/notes/f.txt", "aaaa")
	edited := func(edit func(t testing.TB, path, content string)) resource.TestStep {
		return editedPlan(cfg, "sandbox_file.f", func() { edit(t, file, "AAAA") }, put)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{Config: cfg, Check: resource.ComposeTestCheckFunc(put, env.hostPathOf("/workspace/notes/f.txt", &file),
				env.hostPathOf(fshelper.DigestDir, &cache))},
			settledPlan(cfg),
			// A digest planted in the cache (sealed with the provider's key
			// by the planting) plans an update of the unchanged file: the plan took the
			// digest by stat, without reading it.
			editedPlan(cfg, "sandbox_file.f", func() { edits.PlantFileDigest(t, cache, file, strings.Repeat("0", 64)) }, put),
			settledPlan(cfg),
			// The container's root swaps the file and forges its cache
			// entry (the new stat, the old digest) without the key: the
			// plan still sees the swap.
			editedPlan(cfg, "sandbox_file.f", func() {
				edits.Rewrite(t, file, "AAAA")
				edits.ForgeEntries(t, cache, file, sha("aaaa"))
			}, put),
			settledPlan(cfg),
			edited(edits.Rewrite),
			settledPlan(cfg),
			edited(edits.RewriteKeepTimes),
			settledPlan(cfg),
			edited(edits.SwapInode),
			env.onlyCacheWritten(cfg, "/workspace /workspace/notes", "/workspace:\nnotes\n\n/workspace/notes:\nf.txt"),
		},
		CheckDestroy: env.checkGone,
	})
}
