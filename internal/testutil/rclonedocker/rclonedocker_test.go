package rclonedocker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/fakes3"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/rclonedocker"
)

var files = map[string]string{
	"hello.txt":      "hello world\n",
	"dir/nested.txt": "nested\n",
}

// run starts a container of the test image running `sleep` with hc, and
// removes it when the test ends.
func run(t *testing.T, hc *container.HostConfig) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cli := dockertest.Client()
	created, err := cli.ContainerCreate(ctx, client.ContainerCreateOptions{
		Config:     &container.Config{Image: dockertest.Image, Cmd: []string{"sleep", "3600"}},
		HostConfig: hc,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = cli.ContainerRemove(context.Background(), created.ID, client.ContainerRemoveOptions{Force: true})
	})
	if _, err := cli.ContainerStart(ctx, created.ID, client.ContainerStartOptions{}); err != nil {
		t.Fatal(err)
	}
	return created.ID
}

// sh runs script as root in the container; args are $1...
func sh(t *testing.T, id, script string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := dockertest.Exec(ctx, id, append([]string{"sh", "-c", script, "sh"}, args...)...)
	return strings.TrimSpace(out), err
}

func expect(t *testing.T, id, script, want string, args ...string) {
	t.Helper()
	got, err := sh(t, id, script, args...)
	if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	if got != want {
		t.Fatalf("%s:\n got %q\nwant %q", script, got, want)
	}
}

// The in-container rclone pattern: in a container of the test image given
// /dev/fuse, CAP_SYS_ADMIN and no AppArmor confinement, root mounts the
// bucket read-only with `rclone mount --daemon` and reads it. The host
// network lets the container reach the server on 127.0.0.1.
func TestInContainerRcloneMount(t *testing.T) {
	dockertest.Require(t)
	fakes3.LookRclone(t) // the image carries this machine's rclone
	s := fakes3.Start(t, "bucket", files)
	id := run(t, &container.HostConfig{
		NetworkMode: "host",
		CapAdd:      []string{"SYS_ADMIN"},
		SecurityOpt: []string{"apparmor:unconfined"},
		Resources: container.Resources{Devices: []container.DeviceMapping{
			{PathOnHost: "/dev/fuse", PathInContainer: "/dev/fuse", CgroupPermissions: "rwm"},
		}},
	})

	if _, err := sh(t, id, "command -v rclone && command -v fusermount3"); err != nil {
		t.Fatalf("%s lacks rclone or fusermount3 (rebuild it with scripts/docker-up.sh): %v", dockertest.Image, err)
	}
	expect(t, id, `umask 077 && printf %s "$1" >/root/r.conf && mkdir -p /workspace/data`, "", s.RcloneConfig("r"))
	// The daemon's output goes to /dev/null: with --log-file it keeps a copy
	// of the exec's stderr, and the exec then only returns once the Docker
	// daemon stops waiting for the output to close (seconds later).
	if out, err := sh(t, id, `rclone mount r:bucket /workspace/data --read-only --config /root/r.conf `+
		`--daemon --daemon-wait 30s --log-file /tmp/rclone.log </dev/null >/dev/null 2>&1 || { cat /tmp/rclone.log; exit 1; }`); err != nil {
		t.Fatalf("rclone mount in the container: %v\n%s", err, out)
	}
	expect(t, id, "ls /workspace/data", "dir\nhello.txt")
	expect(t, id, "cat /workspace/data/hello.txt /workspace/data/dir/nested.txt", "hello world\nnested")
	expect(t, id, "echo x >/workspace/data/new.txt 2>/dev/null && echo written || echo refused", "refused")
	if n := s.Writes(); n != 0 {
		t.Errorf("the read-only mount sent %d write requests", n)
	}
	expect(t, id, "fusermount3 -u /workspace/data && ls /workspace/data | wc -l", "0")
}

// The docker_volume strategy: a volume of `rclone serve docker` (options
// as fakes3.Server.VolumeOptions) mounted read-only into a container shows
// the bucket, to root and to another user.
func TestRcloneVolumePlugin(t *testing.T) {
	p := rclonedocker.StartRcloneVolumePlugin(t)
	s := fakes3.Start(t, "bucket", files)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cli := dockertest.Client()
	vol, err := cli.VolumeCreate(ctx, client.VolumeCreateOptions{
		Name: p.Driver + "-data", Driver: p.Driver, DriverOpts: s.VolumeOptions(),
	})
	if err != nil {
		t.Fatalf("docker volume create -d %s: %v", p.Driver, err)
	}
	id := run(t, &container.HostConfig{
		NetworkMode: "none",
		Mounts: []mount.Mount{{
			Type: mount.TypeVolume, Source: vol.Volume.Name, Target: "/workspace/data", ReadOnly: true,
		}},
	})

	expect(t, id, "ls /workspace/data", "dir\nhello.txt")
	expect(t, id, "cat /workspace/data/hello.txt /workspace/data/dir/nested.txt", "hello world\nnested")
	expect(t, id, "su -s /bin/sh nobody -c 'cat /workspace/data/dir/nested.txt'", "nested")
	expect(t, id, "echo x >/workspace/data/new.txt 2>/dev/null && echo written || echo refused", "refused")
	if n := s.Writes(); n != 0 {
		t.Errorf("the read-only volume sent %d write requests", n)
	}
}
