package docker_test

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/events"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/incontainer"
)

// fakeHelper is a helper binary of its own (random bytes under a random
// digest) and its empty volume, so that the test fills a volume no other
// test uses. The volume is removed when the test ends.
func fakeHelper(t *testing.T) (incontainer.Helper, []byte) {
	t.Helper()
	body := make([]byte, 256<<10)
	_, _ = rand.Read(body)
	p := filepath.Join(t.TempDir(), "sandbox-fs-helper")
	if err := os.WriteFile(p, body, 0o755); err != nil {
		t.Fatal(err)
	}
	id := make([]byte, 8)
	_, _ = rand.Read(id)
	h := incontainer.Helper{Path: p, Digest: hex.EncodeToString(id)}
	// The empty volume exists, as another process's create left it.
	if _, err := dockertest.Client().VolumeCreate(context.Background(), client.VolumeCreateOptions{Name: docker.HelperVolumePrefix + h.Digest, Driver: "local",
		Labels: map[string]string{docker.LabelHelperVolume: h.Digest}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = dockertest.Client().VolumeRemove(context.Background(), docker.HelperVolumePrefix+h.Digest, client.VolumeRemoveOptions{Force: true})
	})
	return h, body
}

// watchExtractions follows the daemon's events from now on (a query of
// past events would miss them once the daemon's short history has moved
// on) and returns a function that stops and counts the archives extracted
// into containers labelled with h's digest: one per fill of its volume.
func watchExtractions(t *testing.T, h incontainer.Helper) func() int {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	res := dockertest.Client().Events(ctx, client.EventsListOptions{
		Filters: make(client.Filters).Add("type", string(events.ContainerEventType)).Add("event", "extract-to-dir").
			Add("label", docker.LabelHelperVolume+"="+h.Digest),
	})
	n := 0
	done := make(chan error, 1)
	go func() {
		for {
			select {
			case <-res.Messages:
				n++
			case err := <-res.Err:
				done <- err
				return
			}
		}
	}()
	// Events still on their way when the calls being watched return
	// arrive within the second before the stream is closed.
	return func() int {
		time.Sleep(time.Second)
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
			t.Fatalf("following the daemon's events: %v", err)
		}
		return n
	}
}

// volumeHelper reads the helper binary back out of its volume.
func volumeHelper(t *testing.T, h incontainer.Helper) []byte {
	t.Helper()
	ctx := context.Background()
	cli := dockertest.Client()
	c, err := cli.ContainerCreate(ctx, client.ContainerCreateOptions{
		Config: &container.Config{Image: dockertest.Image, Cmd: []string{"true"}},
		HostConfig: &container.HostConfig{Mounts: []mount.Mount{{Type: mount.TypeVolume, Source: docker.HelperVolumePrefix + h.Digest,
			Target: "/h", ReadOnly: true}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true}) }()
	res, err := cli.CopyFromContainer(ctx, c.ID, client.CopyFromContainerOptions{SourcePath: "/h/" + h.Digest + "/sandbox-fs-helper"})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Content.Close()
	tr := tar.NewReader(res.Content)
	if _, err := tr.Next(); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(tr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Provider processes that meet a daemon without the helper's volume at
// the same moment (parallel applies after a daemon reset or an upgrade)
// fill it once: a second extraction would replace the binary while the
// first one's workspace may be starting it.
func TestHelperVolume_filledOnceAcrossProcesses(t *testing.T) {
	dockertest.Require(t)
	h, body := fakeHelper(t)
	count := watchExtractions(t, h)
	const processes = 6
	errs := make([]error, processes)
	var wg sync.WaitGroup
	for i := range processes {
		d := docker.NewDaemon(docker.HostConfig{}) // a daemon connection of its own, as each provider process has
		wg.Go(func() { errs[i] = d.EnsureHelperVolume(context.Background(), dockertest.Image, h) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("process %d: %v", i, err)
		}
	}
	if n := count(); n != 1 {
		t.Errorf("%d concurrent fills extracted the helper %d times, want once", processes, n)
	}
	if got := volumeHelper(t, h); !bytes.Equal(got, body) {
		t.Errorf("the volume holds %d bytes that are not the helper's %d", len(got), len(body))
	}
}

// A filling container left by a process that died before removing it
// blocks the fill only until it is older than the stale age: it is then
// removed, by every process that waited on it at once, and the volume
// filled once.
func TestHelperVolume_abandonedFillerTakenOver(t *testing.T) {
	dockertest.Require(t)
	h, body := fakeHelper(t)
	ctx := context.Background()
	cli := dockertest.Client()
	name := docker.HelperVolumePrefix + h.Digest + "-fill"
	left, err := cli.ContainerCreate(ctx, client.ContainerCreateOptions{Name: name,
		Config: &container.Config{Image: dockertest.Image, Cmd: []string{"true"}, Labels: map[string]string{docker.LabelHelperVolume: h.Digest}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = cli.ContainerRemove(ctx, left.ID, client.ContainerRemoveOptions{Force: true}) })
	docker.SetHelperFillStale(2*time.Second, t.Cleanup)
	count := watchExtractions(t, h)
	start := time.Now()
	// Several processes find it stale at once and remove it together.
	const processes = 4
	errs := make([]error, processes)
	var wg sync.WaitGroup
	for i := range processes {
		d := docker.NewDaemon(docker.HostConfig{})
		wg.Go(func() { errs[i] = d.EnsureHelperVolume(ctx, dockertest.Image, h) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("process %d: %v", i, err)
		}
	}
	if n := count(); n != 1 {
		t.Errorf("%d processes taking over extracted the helper %d times, want once", processes, n)
	}
	if waited := time.Since(start); waited < 2*time.Second {
		t.Errorf("the fill took the name of a filling container only %s old", waited)
	}
	if _, err := cli.ContainerInspect(ctx, left.ID, client.ContainerInspectOptions{}); err == nil {
		t.Errorf("the abandoned filling container %s is still there", left.ID)
	}
	if got := volumeHelper(t, h); !bytes.Equal(got, body) {
		t.Errorf("the volume holds %d bytes that are not the helper's %d", len(got), len(body))
	}
}
