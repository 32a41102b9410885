package docker_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/google/uuid"
	mcontainer "github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
)

// A snapshot image a container was created from stays, naming the
// container; once the container is gone it is removed.
func TestRemoveSnapshotImageInUse(t *testing.T) {
	d := dockertest.Require(t)
	ctx := context.Background()
	cli := dockertest.Client()
	ref := "sandbox-test/inuse-" + uuid.NewString()[:8] + ":v1"
	// An image of its own (one file), so that no other test's container uses it.
	var layer bytes.Buffer
	tw := tar.NewWriter(&layer)
	_ = tw.WriteHeader(&tar.Header{Name: "marker", Mode: 0o644, Size: int64(len(ref))})
	_, _ = tw.Write([]byte(ref))
	_ = tw.Close()
	repo, tag, _ := strings.Cut(ref, ":")
	res, err := cli.ImageImport(ctx, client.ImageImportSource{Source: &layer, SourceName: "-"}, repo, client.ImageImportOptions{Tag: tag})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res)
	res.Close()
	img, err := cli.ImageInspect(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	name := "sandbox-inuse-" + uuid.NewString()[:8]
	c, err := cli.ContainerCreate(ctx, client.ContainerCreateOptions{Name: name, Config: &mcontainer.Config{Image: ref, Cmd: []string{"true"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true}) //nolint:errcheck
	err = d.RemoveSnapshotImage(ctx, img.ID, ref)
	if !errors.Is(err, docker.ErrImageInUse) || !strings.Contains(err.Error(), name) {
		t.Fatalf("error %v, want ErrImageInUse naming %s", err, name)
	}
	if _, err := cli.ImageInspect(ctx, ref); err != nil {
		t.Fatalf("the image in use went: %v", err)
	}
	if _, err := cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if err := d.RemoveSnapshotImage(ctx, img.ID, ref); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.ImageInspect(ctx, ref); !cerrdefs.IsNotFound(err) {
		t.Fatalf("the tag is still there: %v", err)
	}
	if _, err := cli.ImageInspect(ctx, img.ID); !cerrdefs.IsNotFound(err) {
		t.Fatalf("the image is still there: %v", err)
	}
}
