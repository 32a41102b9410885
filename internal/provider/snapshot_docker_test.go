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
	env := newDockerEnv(t)
	writeTreeSource(env.testEnv)
	srv := fakes3.Start(t, "bucket", map[string]string{"object.txt": "from the bucket\n"})
	snaps := filepath.Join(t.TempDir(), "snaps")
	cfg := dockerSnapshotConfig(env, srv, snaps, "")
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
		},
	})
}
