package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/google/uuid"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
)

// newTestVolume creates a local volume that is not the provider's, with
// hello.txt written into it by a throwaway container when content is not
// empty. It is removed when the test ends.
func newTestVolume(t *testing.T, content string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cli := dockertest.Client()
	name := "sandbox-test-" + uuid.NewString()
	_, err := cli.VolumeCreate(ctx, client.VolumeCreateOptions{Name: name})
	must(t, err)
	t.Cleanup(func() {
		if _, err := cli.VolumeRemove(context.Background(), name, client.VolumeRemoveOptions{}); err != nil && !cerrdefs.IsNotFound(err) {
			t.Error(err)
		}
	})
	if content == "" {
		return name
	}
	c, err := cli.ContainerCreate(ctx, client.ContainerCreateOptions{
		Config:     &container.Config{Image: dockertest.Image, Entrypoint: []string{"tail"}, Cmd: []string{"-f", "/dev/null"}},
		HostConfig: &container.HostConfig{Mounts: []mount.Mount{{Type: mount.TypeVolume, Source: name, Target: "/v"}}},
	})
	must(t, err)
	defer func() {
		_, _ = cli.ContainerRemove(context.Background(), c.ID, client.ContainerRemoveOptions{Force: true})
	}()
	_, err = cli.ContainerStart(ctx, c.ID, client.ContainerStartOptions{})
	must(t, err)
	_, err = dockertest.Exec(ctx, c.ID, "sh", "-c", "printf '%s' \"$1\" > /v/hello.txt", "sh", content)
	must(t, err)
	return name
}

// volumeConfig is a docker workspace with the given volumes list and
// extra top-level workspace attributes.
func volumeConfig(base, volumes, wsExtra string) string {
	return fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}

resource "sandbox_workspace" "ws" {
  docker {
    image       = %q
    pull_policy = "never"
    volumes = [
      %s
    ]
  }
  %s
}
`, base, dockertest.Image, volumes, wsExtra)
}

// volumeExists checks that the daemon still has the volume.
func volumeExists(name string) error {
	if _, err := dockertest.Client().VolumeInspect(context.Background(), name, client.VolumeInspectOptions{}); err != nil {
		return fmt.Errorf("volume %s after destroy: %w", name, err)
	}
	return nil
}

// A foreign volume mounted read-only below the root and a second one
// writable outside it: the file in the volume is visible, writes are
// refused, import reads both back, the same target written as an absolute
// path updates in place, read_only replaces the container, and destroy
// leaves the volumes.
func TestAccDockerWorkspace_volumes(t *testing.T) {
	env := newDockerEnv(t)
	data := newTestVolume(t, "from the volume\n")
	scratch := newTestVolume(t, "")
	vols := func(dataPath, dataRO string) string {
		return fmt.Sprintf(`{ volume_name = %q, path = %q%s },
      { volume_name = %q, path = "/mnt/scratch", read_only = false },`, data, dataPath, dataRO, scratch)
	}
	var first string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: volumeConfig(env.base, vols("data", ""), ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("sandbox_workspace.ws", tfjsonpath.New("docker").AtMapKey("volumes"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectExact(map[string]knownvalue.Check{
							"volume_name": knownvalue.StringExact(data), "path": knownvalue.StringExact("data"), "read_only": knownvalue.Bool(true),
						}),
						knownvalue.ObjectExact(map[string]knownvalue.Check{
							"volume_name": knownvalue.StringExact(scratch), "path": knownvalue.StringExact("/mnt/scratch"), "read_only": knownvalue.Bool(false),
						}),
					})),
				},
				Check: resource.ComposeTestCheckFunc(
					func(s *terraform.State) error { first = env.container(s); return nil },
					env.expectSh("cat /workspace/data/hello.txt", "from the volume"),
					env.expectSh("touch /workspace/data/new 2>&1 || echo refused", "touch: /workspace/data/new: Read-only file system\nrefused"),
					env.expectSh("echo kept > /mnt/scratch/f && cat /mnt/scratch/f", "kept"),
				),
			},
			{ResourceName: "sandbox_workspace.ws", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"keep_on_destroy", "docker.pull_policy"}},
			{
				// The same target written as an absolute path: nothing to
				// re-create.
				Config: volumeConfig(env.base, vols("/workspace/data", ""), ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionUpdate),
				}},
				Check: func(s *terraform.State) error {
					if id := env.container(s); id != first {
						return fmt.Errorf("the container was replaced: %s, was %s", id, first)
					}
					return nil
				},
			},
			{
				// A container's mounts are fixed at creation: read_only
				// replaces it.
				Config: volumeConfig(env.base, vols("data", ", read_only = false"), ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionDestroyBeforeCreate),
				}},
				Check: resource.ComposeTestCheckFunc(
					env.expectSh("echo written > /workspace/data/w.txt && cat /workspace/data/hello.txt /workspace/data/w.txt", "from the volume\nwritten"),
				),
			},
		},
		CheckDestroy: resource.ComposeTestCheckFunc(
			env.checkGone,
			func(*terraform.State) error { return volumeExists(data) },
			func(*terraform.State) error { return volumeExists(scratch) },
		),
	})
}

// A volume that does not exist fails the apply on its volume_name, saying
// how to create it, and leaves no container behind.
func TestAccDockerWorkspace_volumeMissing(t *testing.T) {
	env := newDockerEnv(t)
	name := "sandbox-test-missing-" + uuid.NewString()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{{
			Config: volumeConfig(env.base, fmt.Sprintf(`{ volume_name = %q, path = "data" },`, name), ""),
			ExpectError: regexp.MustCompile(`(?s)Volume not found.*` + errRe(fmt.Sprintf("volume %q does not exist on the Docker daemon", name)).String() +
				`.*` + errRe("as volume_name = sandbox_s3_mount.x.volume_name, so that Terraform creates it before the workspace").String()),
		}},
	})
	res, err := dockertest.Client().ContainerList(context.Background(), client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("volume", name)})
	must(t, err)
	if len(res.Items) > 0 {
		t.Fatalf("containers left for the refused workspace: %+v", res.Items)
	}
	if _, err := dockertest.Client().VolumeInspect(context.Background(), name, client.VolumeInspectOptions{}); !cerrdefs.IsNotFound(err) {
		t.Fatalf("the missing volume was created: %v", err)
	}
}

// Plan-time refusals of volume paths need no daemon.
func TestAccDockerWorkspace_volumePlanRefusals(t *testing.T) {
	base := t.TempDir()
	cases := map[string]struct{ volumes, extra, want string }{
		"duplicate target": {`{ volume_name = "a", path = "data" },
      { volume_name = "b", path = "/workspace/data/" },`, "", "target /workspace/data is already the target of volume a"},
		"root":              {`{ volume_name = "a", path = "/workspace" },`, "", "is the workspace root itself"},
		"dot":               {`{ volume_name = "a", path = "." },`, "", "is the workspace root itself"},
		"contains the root": {`{ volume_name = "a", path = "/srv" },`, `root = "/srv/ws"`, "contains the workspace root /srv/ws"},
		"slash":             {`{ volume_name = "a", path = "/" },`, "", "contains the workspace root /workspace"},
		"escape":            {`{ volume_name = "a", path = "../etc" },`, "", "manifest path must not escape root: ../etc"},
		"windows":           {`{ volume_name = "a", path = "C:\\data" },`, "", "manifest path must be relative: C:/data"},
		"empty name":        {`{ volume_name = "", path = "data" },`, "", "string length must be at least 1"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				Steps: []resource.TestStep{{
					Config:      volumeConfig(base, c.volumes, c.extra),
					PlanOnly:    true,
					ExpectError: errRe(c.want),
				}},
			})
		})
	}
}
