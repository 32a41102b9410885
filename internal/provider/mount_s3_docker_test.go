package provider

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/fakes3"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/rclonedocker"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/volplugin"
)

// dockerMountConfig is a docker workspace on the host network (so that a
// helper in the container reaches the S3 server on 127.0.0.1) with the
// given fuse setting, plus body.
func dockerMountConfig(env *dockerEnv, fuse bool, body string) string {
	return fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}

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

resource "sandbox_workspace" "ws" {
  docker {
    image        = %q
    pull_policy  = "never"
    network_mode = "host"
    fuse         = %t
  }
}
%s`, env.base, dockertest.Image, fuse, body)
}

func s3InContainerMount(srv *fakes3.Server) string {
	return fmt.Sprintf(`
resource "sandbox_s3_mount" "data" {
  workspace_id           = sandbox_workspace.ws.id
  path                   = "data"
  bucket                 = %q
  endpoint_url           = %q
  s3_provider            = "Other"
  access_key_id_wo       = var.key_id
  secret_access_key_wo   = var.secret
  credentials_wo_version = 1
  in_container {
    rclone {}
  }
}
`, srv.Bucket, srv.Endpoint)
}

// TestAccS3Mount_rcloneDocker mounts a bucket with rclone inside a
// container of the test image (which ships rclone and fusermount3):
// refused at plan time without the FUSE grant, then files read through the
// mount by exec, a write refused, and destroy unmounting it.
func TestAccS3Mount_rcloneDocker(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	files := map[string]string{"hello.txt": "hello from the bucket\n", "dir/nested.txt": "nested object\n"}
	srv := fakes3.Start(t, "bucket", files)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				// The workspace first, without the FUSE grant.
				Config:          dockerMountConfig(env, false, ""),
				ConfigVariables: s3Vars(srv),
			},
			{
				Config:          dockerMountConfig(env, false, s3InContainerMount(srv)),
				ConfigVariables: s3Vars(srv),
				// The plan warns (a destroy must stay possible); the apply fails.
				ExpectError: errRe("has no FUSE grant; an in-container rclone mount needs /dev/fuse and CAP_SYS_ADMIN: set fuse = true"),
			},
			{
				Config:          dockerMountConfig(env, true, s3InContainerMount(srv)),
				ConfigVariables: s3Vars(srv),
				Check: resource.ComposeTestCheckFunc(
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
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// Destroying the mount alone: unmounted, the helper files
				// gone, the workspace kept.
				Config:          dockerMountConfig(env, true, ""),
				ConfigVariables: s3Vars(srv),
				Check: resource.ComposeTestCheckFunc(
					env.expectSh("grep -c ' /workspace/data ' /proc/mounts || true", "0"),
					env.expectSh("ls -A /workspace", "data"),
				),
			},
		},
		CheckDestroy: env.checkGone,
	})
}

// TestAccS3Mount_dockerVolume creates the bucket's Docker volume with the
// rclone volume plugin (`rclone serve docker`, serving the driver name
// "rclone") and attaches it to a workspace: the driver options the daemon
// keeps are the Python SDK's generated ones with driver_options merged last, the
// container reads the objects, and destroy removes the volume.
func TestAccS3Mount_dockerVolume(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	fakes3.LookRclone(t)
	fakes3.RequireFUSE(t)
	volplugin.Lock(t, "rclone")
	rclonedocker.StartRcloneVolumePluginAs(t, "rclone")
	files := map[string]string{"hello.txt": "hello from the bucket\n"}
	srv := fakes3.Start(t, "bucket", files)
	body := fmt.Sprintf(`
resource "sandbox_s3_mount" "data" {
  path                 = "data"
  bucket               = %q
  endpoint_url         = %q
  s3_provider          = "Other"
  access_key_id_wo     = var.key_id
  secret_access_key_wo = var.secret
  docker_volume {
    driver         = "rclone"
    driver_options = { "read-only" = "true", "s3-provider" = "Other" }
  }
}
`, srv.Bucket, srv.Endpoint)
	cfg := fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}

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

resource "sandbox_workspace" "ws" {
  docker {
    image       = %q
    pull_policy = "never"
    volumes = [{
      volume_name = sandbox_s3_mount.data.volume_name
      path        = sandbox_s3_mount.data.path
      read_only   = sandbox_s3_mount.data.read_only
    }]
  }
}
%s`, env.base, dockertest.Image, body)
	var volume string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{{
			Config:          cfg,
			ConfigVariables: s3Vars(srv),
			Check: resource.ComposeTestCheckFunc(
				resource.TestMatchResourceAttr("sandbox_s3_mount.data", "volume_name",
					regexp.MustCompile(`^sandbox_[0-9a-f]{32}_[0-9a-f]{12}_workspace_data$`)),
				resource.TestCheckResourceAttr("sandbox_s3_mount.data", "absolute_path", "/workspace/data"),
				env.expectSh("cat /workspace/data/hello.txt", "hello from the bucket"),
				env.expectSh("echo x > /workspace/data/new.txt 2>/dev/null && echo written || echo refused", "refused"),
				func(s *terraform.State) error {
					volume = s.RootModule().Resources["sandbox_s3_mount.data"].Primary.Attributes["volume_name"]
					v, err := dockertest.Client().VolumeInspect(context.Background(), volume, client.VolumeInspectOptions{})
					if err != nil {
						return err
					}
					want := map[string]string{"type": "s3", "s3-provider": "Other", "path": srv.Bucket,
						"s3-access-key-id": srv.AccessKeyID, "s3-secret-access-key": srv.SecretAccessKey,
						"s3-endpoint": srv.Endpoint, "read-only": "true"}
					if got := v.Volume.Options; !maps.Equal(got, want) {
						return fmt.Errorf("volume driver options differ from the Python SDK's generated ones:\n got %v\nwant %v",
							redactedKeys(got), redactedKeys(want))
					}
					if v.Volume.Driver != "rclone" {
						return fmt.Errorf("volume driver %q", v.Volume.Driver)
					}
					return nil
				},
			),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		}},
		CheckDestroy: func(s *terraform.State) error {
			if err := env.checkGone(s); err != nil {
				return err
			}
			if _, err := dockertest.Client().VolumeInspect(context.Background(), volume, client.VolumeInspectOptions{}); err == nil {
				return fmt.Errorf("volume %s survived destroy", volume)
			}
			return nil
		},
	})
}

// redactedKeys shows which option keys a map has, never their values.
func redactedKeys(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s(%d chars)", k, len(v)))
	}
	return sortStrings(out)
}
