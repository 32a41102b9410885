package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/fakes3"
)

// dockerSnapshotConfig is a FUSE-enabled docker workspace with a bucket
// mounted at data by rclone, the snapshot entries, and extra.
func dockerSnapshotConfig(env *dockerEnv, srv *fakes3.Server, snaps, extra string) string {
	cfg := dockerMountConfig(env, true, s3InContainerMount(srv)+snapshotEntries(env.src, snaps, "sandbox_s3_mount.data")+extra)
	return strings.Replace(cfg, "provider \"sandbox\" {\n",
		fmt.Sprintf("provider \"sandbox\" {\n  extra_path_grants = [{ path = %q, read_only = true }]\n", env.src), 1)
}

func TestAccSnapshot_docker(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	writeTreeSource(env.testEnv)
	srv := fakes3.Start(t, "bucket", map[string]string{"object.txt": "from the bucket\n"})
	snaps := filepath.Join(t.TempDir(), "snaps")
	cfg := dockerSnapshotConfig(env, srv, snaps, "")
	restored := dockerSnapshotConfig(env, srv, snaps, fmt.Sprintf(restoredDockerWorkspace, dockertest.Image))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             resource.ComposeTestCheckFunc(env.checkGone, snapshotArchiveGone(snaps)),
		Steps: []resource.TestStep{
			{
				Config: cfg, ConfigVariables: s3Vars(srv),
				Check: resource.ComposeTestCheckFunc(
					env.expectSh("cat /workspace/data/object.txt", "from the bucket"),
					checkSnapshotArchive(true),
					func(s *terraform.State) error {
						// The archive is the workspace's own: no helper binary, no
						// generated mount configuration.
						p := s.RootModule().Resources["sandbox_snapshot.s"].Primary.Attributes["path"]
						if fi, err := os.Stat(p); err != nil || fi.Size() > 1<<20 {
							return fmt.Errorf("archive %s: %v, %w", p, fi, err)
						}
						return nil
					},
				),
			},
			{Config: cfg, ConfigVariables: s3Vars(srv), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
			{
				// A fresh container restored from the snapshot, with an entry on top.
				Config: restored, ConfigVariables: s3Vars(srv),
				Check: checkRestoredDocker(env),
			},
			{Config: restored, ConfigVariables: s3Vars(srv), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		},
	})
}

// restoredDockerWorkspace is a second docker workspace restored from
// sandbox_snapshot.s, with one entry of its own.
const restoredDockerWorkspace = `
resource "sandbox_workspace" "restored" {
  docker {
    image       = "%s"
    pull_policy = "never"
  }
  restore_from = { path = sandbox_snapshot.s.path, sha256 = sandbox_snapshot.s.sha256 }
}

resource "sandbox_file" "on_top" {
  workspace_id = sandbox_workspace.restored.id
  path         = "out/extra.txt"
  content      = "added after the restore\n"
  permissions  = "0600"
}
`

// checkRestoredDocker compares, inside the two containers, the sha256 and
// mode of every persistent file, and checks that the ephemeral file and
// the bucket's objects were not restored.
func checkRestoredDocker(env *dockerEnv) resource.TestCheckFunc {
	const list = "cd /workspace && for f in out/note.txt bin/run.sh tree/a.txt tree/sub/b.conf; do " +
		"echo \"$(stat -c '%a %u' \"$f\") $(sha256sum \"$f\")\"; done; stat -c '%a' out"
	return func(s *terraform.State) error {
		src := env.container(s)
		dst := s.RootModule().Resources["sandbox_workspace.restored"].Primary.Attributes["container_id"]
		env.seen[dst] = true
		want, err := sh(src, list)
		if err != nil {
			return err
		}
		got, err := sh(dst, list)
		if err != nil {
			return err
		}
		if got != want || !strings.Contains(got, "755 0") {
			return fmt.Errorf("restored files differ:\n got %s\nwant %s", got, want)
		}
		left, err := sh(dst, "ls -A /workspace; ls -A /workspace/tmp /workspace/data 2>&1; cat /workspace/out/extra.txt")
		if err != nil {
			return err
		}
		if strings.Contains(left, "token") || strings.Contains(left, "object.txt") || strings.Contains(left, ".sandbox-") ||
			!strings.Contains(left, "added after the restore") {
			return fmt.Errorf("restored workspace holds:\n%s", left)
		}
		return nil
	}
}
