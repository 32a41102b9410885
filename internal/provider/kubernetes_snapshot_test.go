package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/fakes3"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/kubetest"
)

// shIn runs a script as root in the workspace container of pod.
func (e *kubeEnv) shIn(pod, script string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, stderr, err := kubetest.ExecIn(ctx, e.cfg, kubetest.WebSocket, e.ns, pod, kubetest.WorkspaceContainer, nil, "sh", "-c", script)
	if err != nil {
		return "", fmt.Errorf("exec %q in pod %s: %w: %s", script, pod, err, stderr)
	}
	return strings.TrimSpace(out), nil
}

// A pod workspace's snapshot goes to a bucket and a new pod workspace is
// restored from the object (restore_from.url): every file's mode, owner
// and sha256 match in the two pods, the ephemeral file is not there, and
// the next plan is empty. An image snapshot of a pod fails the plan.
func TestAccKubernetesSnapshotS3_restore(t *testing.T) {
	env := newKubeEnv(t)
	writeTreeSource(env.testEnv)
	srv := fakes3.Start(t, "snaps", nil)
	t.Setenv("AWS_ACCESS_KEY_ID", srv.AccessKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretAccessKey)
	cfg := env.config("", "", s3SnapshotEntries(env.src, srv, "pods"))
	restored := cfg + s3RestoredWorkspace(fmt.Sprintf(`kubernetes {
    namespace         = %q
    image             = %q
    image_pull_policy = "Never"
  }`, env.ns, kubetest.WorkspaceImage), srv, "", "")
	image := cfg + `
resource "sandbox_snapshot" "img" {
  workspace_id = sandbox_workspace.ws.id
  image { repository = "sandbox-test/pod" }
}
`
	const list = "cd /workspace && for f in out/note.txt bin/run.sh tree/a.txt tree/sub/b.conf; do " +
		"echo \"$(stat -c '%a %u' \"$f\") $(sha256sum \"$f\")\"; done; stat -c '%a' out"
	var key string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             resource.ComposeTestCheckFunc(env.checkGone, bucketEmpty(t, srv)),
		Steps: []resource.TestStep{
			{Config: cfg, ConfigVariables: s3Vars(srv), Check: checkS3Object(t, srv, "pods", &key)},
			{
				Config: image, ConfigVariables: s3Vars(srv), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)Image snapshots are Docker only.*kubernetes workspace.*restore_from.url`),
			},
			{
				Config: restored, ConfigVariables: s3Vars(srv),
				Check: func(s *terraform.State) error {
					src := env.pod(s)
					dst := s.RootModule().Resources["sandbox_workspace.restored"].Primary.Attributes["kubernetes.pod_name"]
					want, err := env.shIn(src, list)
					if err != nil {
						return err
					}
					got, err := env.shIn(dst, list)
					if err != nil {
						return err
					}
					if src == dst || got != want || !strings.Contains(got, "755 ") {
						return fmt.Errorf("restored pod %s differs:\n got %s\nwant %s", dst, got, want)
					}
					const token = "test -e /workspace/tmp/token && echo present || echo absent"
					if here, _ := env.shIn(src, token); here != "present" {
						return fmt.Errorf("the source pod's ephemeral file: %s", here)
					}
					there, err := env.shIn(dst, token)
					if err != nil {
						return err
					}
					if there != "absent" {
						return fmt.Errorf("the ephemeral file in the restored pod: %s", there)
					}
					t.Logf("restored pod %s holds:\n%s", dst, got)
					return nil
				},
			},
			{Config: restored, ConfigVariables: s3Vars(srv), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		},
	})
}
