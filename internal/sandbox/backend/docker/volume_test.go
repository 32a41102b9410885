package docker_test

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"
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

// newVolume creates a volume with the local driver's tmpfs options,
// removed when the test ends.
func newVolume(t *testing.T, extra map[string]string) spec.DockerVolume {
	t.Helper()
	d := dockertest.Require(t)
	spec := spec.DockerVolume{
		Name: "sandbox-test-" + uuid.NewString(), Driver: "local",
		Options: map[string]string{"type": "tmpfs", "device": "tmpfs", "o": "size=1m"},
		Labels:  map[string]string{"purpose": "test"},
	}
	for k, v := range extra {
		spec.Options[k] = v
	}
	if err := d.CreateVolume(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.RemoveVolume(context.Background(), spec.Name); err != nil {
			t.Error(err)
		}
	})
	return spec
}

func TestDockerVolume_createReuseConflict(t *testing.T) {
	spec := newVolume(t, nil)
	d, ctx := dockertest.Daemon(), context.Background()
	info, err := d.InspectVolume(ctx, spec.Name)
	if err != nil || !info.Exists || info.Name != spec.Name || info.Driver != "local" ||
		info.Labels[docker.LabelManaged] != "true" || info.Labels["purpose"] != "test" {
		t.Fatalf("inspect: %+v %v", info, err)
	}
	// The same name, driver and options: reused.
	if err := d.CreateVolume(ctx, spec); err != nil {
		t.Fatalf("re-creating the same volume: %v", err)
	}
	// Different options: an error naming the volume and the option, never
	// a value.
	other := spec
	other.Options = map[string]string{"type": "tmpfs", "device": "tmpfs", "o": "size=2m,uid=4242"}
	err = d.CreateVolume(ctx, other)
	if err == nil || !strings.Contains(err.Error(), spec.Name) || !strings.Contains(err.Error(), "(o differ)") {
		t.Fatalf("different options: %v", err)
	}
	for _, v := range []string{"size=1m", "size=2m", "4242", "tmpfs"} {
		if strings.Contains(err.Error(), v) {
			t.Fatalf("the error shows option value %q: %v", v, err)
		}
	}
	other = spec
	other.Driver = "nosuchdriver"
	if err := d.CreateVolume(ctx, other); err == nil || !strings.Contains(err.Error(), `already exists with driver "local", not "nosuchdriver"`) {
		t.Fatalf("different driver: %v", err)
	}
}

// A driver error never shows the options it was given.
func TestDockerVolume_errorsHideOptions(t *testing.T) {
	d := dockertest.Require(t)
	const secret = "s3cr3t-Value-9f2c"
	err := d.CreateVolume(context.Background(), spec.DockerVolume{
		Name: "sandbox-test-" + uuid.NewString(), Driver: "local",
		Options: map[string]string{"password": secret},
	})
	if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), `invalid option: "password"`) {
		t.Fatalf("an option the driver refuses: %v", err)
	}
	// The local driver echoes its mount data when a mount fails at
	// container start: the workspace's error must not.
	vol := newVolume(t, map[string]string{"o": "nosuchoption=" + secret})
	_, err = d.Create(context.Background(), docker.Spec{WorkspaceID: uuid.NewString(), Docker: spec.Docker{Image: dockertest.Image, PullPolicy: docker.PullNever, Root: "/workspace", Volumes: []spec.VolumeMount{{Name: vol.Name, Target: "/workspace/data"}}}})
	if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "REDACTED") {
		t.Fatalf("failed mount: %v", err)
	}
	t.Logf("failed mount, as reported: %v", err)
}

func TestDockerVolume_mountedAndRemoved(t *testing.T) {
	vol := newVolume(t, nil)
	d, ctx := dockertest.Daemon(), context.Background()

	// A missing volume: refused before any container is created.
	ws := uuid.NewString()
	_, err := d.Create(ctx, docker.Spec{WorkspaceID: ws, Docker: spec.Docker{Image: dockertest.Image, PullPolicy: docker.PullNever, Root: "/workspace", Volumes: []spec.VolumeMount{{Name: "sandbox-test-missing-" + ws, Target: "/workspace/data"}}}})
	var missing *spec.MissingVolumeError
	if !errors.As(err, &missing) || missing.Name != "sandbox-test-missing-"+ws {
		t.Fatalf("missing volume: %v", err)
	}
	if id, _, err := d.FindWorkspace(ctx, ws); err != nil || id != "" {
		t.Fatalf("a container was left for the refused workspace: %q %v", id, err)
	}

	scratch := newVolume(t, nil)
	b := newWorkspace(t, func(s *docker.Spec) {
		s.Volumes = []spec.VolumeMount{
			{Name: vol.Name, Target: "/workspace/data", ReadOnly: true},
			{Name: scratch.Name, Target: "/mnt/scratch"},
		}
	})
	if got := sh(t, b, "echo hi > /mnt/scratch/f && cat /mnt/scratch/f; touch /workspace/data/x 2>/dev/null || echo refused"); got != "hi\nrefused" {
		t.Fatalf("in the container: %q", got)
	}
	info, err := b.Describe(ctx)
	if err != nil || len(info.Volumes) != 2 || info.Volumes[0] != (spec.VolumeMount{Name: vol.Name, Target: "/workspace/data", ReadOnly: true}) ||
		info.Volumes[1] != (spec.VolumeMount{Name: scratch.Name, Target: "/mnt/scratch"}) {
		t.Fatalf("describe: %+v %v", info.Volumes, err)
	}

	// In use: the error names the workspace's container.
	err = d.RemoveVolume(ctx, vol.Name)
	if err == nil || !strings.Contains(err.Error(), "in use by container sandbox-") || !strings.Contains(err.Error(), b.ContainerID()[:12]) {
		t.Fatalf("removing a volume in use: %v", err)
	}

	// Removing the workspace leaves the named volumes; then they go.
	if err := d.Remove(ctx, b.ContainerID()); err != nil {
		t.Fatal(err)
	}
	if info, err := d.InspectVolume(ctx, vol.Name); err != nil || !info.Exists {
		t.Fatalf("the volume went with the workspace: %+v %v", info, err)
	}
	if err := d.RemoveVolume(ctx, vol.Name); err != nil {
		t.Fatal(err)
	}
	if info, err := d.InspectVolume(ctx, vol.Name); err != nil || info.Exists || info.Name != "" {
		t.Fatalf("after removal: %+v %v", info, err)
	}
	// Missing is not an error.
	if err := d.RemoveVolume(ctx, vol.Name); err != nil {
		t.Fatalf("removing a missing volume: %v", err)
	}
}
