package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/fakes3"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/kubetest"
)

// kubeMountVars declares the credentials the mount takes write-only.
const kubeMountVars = `
variable "key_id" {
  type      = string
  sensitive = true
  ephemeral = true
}

variable "secret" {
  type      = string
  sensitive = true
  ephemeral = true
}
`

// TestAccKubernetesMount_rclone mounts a bucket with rclone inside a pod of
// the test image (which ships rclone and fusermount3), the S3 server
// listening on this machine's address on the pods' bridge: refused without
// privileged = true (a warning at plan, the error at apply), then the
// objects read through the mount by exec in the pod, a write refused, the
// config file 0600, and removing the mount resource unmounting it.
func TestAccKubernetesMount_rclone(t *testing.T) {
	env := newKubeEnv(t)
	fakes3.RequireFUSE(t)
	files := map[string]string{"hello.txt": "hello from the bucket\n", "dir/nested.txt": "nested object\n"}
	srv := fakes3.StartOn(t, kubetest.HostAddress(t, env.cs, env.ns), "bucket", files)
	cfg := func(privileged bool, mount string) string {
		return env.config(fmt.Sprintf("privileged = %t", privileged), "", kubeMountVars+mount)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{Config: cfg(false, ""), ConfigVariables: s3Vars(srv)},
			{
				Config:          cfg(false, s3InContainerMount(srv)),
				ConfigVariables: s3Vars(srv),
				ExpectError:     errRe("is a pod that is not privileged; an in-container rclone mount needs /dev/fuse and the mount capability: set privileged = true"),
			},
			{
				Config:          cfg(true, s3InContainerMount(srv)),
				ConfigVariables: s3Vars(srv),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionReplace)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "kubernetes.privileged", "true"),
					env.expectSh("cat /workspace/data/hello.txt /workspace/data/dir/nested.txt", "hello from the bucket\nnested object"),
					env.expectSh("ls /workspace/data | tr '\\n' ' '", "dir hello.txt"),
					env.expectSh("echo x > /workspace/data/new.txt 2>/dev/null && echo written || echo refused", "refused"),
					env.expectSh("grep -c ' /workspace/data fuse.rclone ro,' /proc/mounts", "1"),
					env.expectSh("stat -c %a /workspace/.sandbox-rclone-config/*/*.conf", "600"),
					func(*terraform.State) error {
						if n := srv.Writes(); n != 0 {
							return fmt.Errorf("the bucket saw %d writes through a read-only mount", n)
						}
						return nil
					},
				),
			},
			{
				Config:          cfg(true, ""),
				ConfigVariables: s3Vars(srv),
				Check: resource.ComposeTestCheckFunc(
					env.expectSh("grep -c ' /workspace/data ' /proc/mounts || true", "0"),
					env.expectSh("ls -A /workspace", "data"),
				),
			},
		},
	})
}
