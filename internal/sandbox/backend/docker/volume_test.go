package docker_test

import (
	"context"
	"testing"

	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
)

// An image that declares a VOLUME gets an anonymous volume with each
// container; removing the workspace removes that volume too.
func TestDockerBackend_removeDeletesVolumes(t *testing.T) {
	dockertest.Require(t)
	ctx := context.Background()
	cli := dockertest.Client()
	// Derive an image with a VOLUME from the test image (no builder, no pull).
	const image = "sandbox-test/busybox-volume:latest"
	tmp, err := cli.ContainerCreate(ctx, client.ContainerCreateOptions{Image: dockertest.Image})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cli.ContainerCommit(ctx, tmp.ID, client.ContainerCommitOptions{Reference: image, Changes: []string{`VOLUME ["/data"]`}})
	_, _ = cli.ContainerRemove(ctx, tmp.ID, client.ContainerRemoveOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	b := newWorkspace(t, func(s *docker.Spec) { s.Image = image })
	ins, err := cli.ContainerInspect(ctx, b.ContainerID(), client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var vol string
	for _, m := range ins.Container.Mounts {
		if m.Destination == "/data" {
			vol = m.Name
		}
	}
	if vol == "" {
		t.Fatalf("no anonymous volume at /data: %+v", ins.Container.Mounts)
	}
	if err := dockertest.Daemon().Remove(ctx, b.ContainerID()); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.VolumeInspect(ctx, vol, client.VolumeInspectOptions{}); err == nil {
		t.Fatalf("volume %s survived the workspace's removal", vol)
	}
}
