package workspace

import (
	"context"
	"fmt"
	"io"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/local"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/snapshot"
)

// persist walks the host root directly; the mount table is the host's.
func (localDriver) persist(ctx context.Context, w *Workspace, exclude []string, manifestDigest string, out io.Writer) (snapshot.Summary, error) {
	points, err := local.MountPoints(w.Root)
	if err != nil {
		return snapshot.Summary{}, err
	}
	return snapshot.PersistRoot(ctx, w.Root, exclude, points, manifestDigest, out)
}

func (localDriver) hydrate(ctx context.Context, w *Workspace, r io.Reader, l sandbox.OutputLimits) (int, error) {
	sum, err := snapshot.Extract(ctx, w.Root, r, false, l) // host files keep the provider's user
	return sum.FileCount, err
}

// containerStreams is a workspace inside a container whose file helper
// writes and reads snapshot streams (package incontainer).
type containerStreams interface {
	Persist(ctx context.Context, exclude []string, out io.Writer) error
	HydrateWithin(ctx context.Context, r io.Reader, l sandbox.OutputLimits) (int, error)
}

func streamsOf(w *Workspace) (containerStreams, error) {
	b, ok := w.Backend.(containerStreams)
	if !ok {
		return nil, fmt.Errorf("workspace %s is not inside a container", w.ID)
	}
	return b, nil
}

// persistInContainer has the file helper write the tar inside the
// container (its mount table is the container's) and summarizes the
// stream on its way out.
func persistInContainer(ctx context.Context, w *Workspace, exclude []string, manifestDigest string, out io.Writer) (snapshot.Summary, error) {
	b, err := streamsOf(w)
	if err != nil {
		return snapshot.Summary{}, err
	}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := b.Persist(ctx, exclude, pw)
		pw.CloseWithError(err)
		done <- err
	}()
	sum, serr := snapshot.Summarize(io.TeeReader(pr, out), manifestDigest)
	pr.CloseWithError(fmt.Errorf("the archive was not read to its end"))
	if err := <-done; err != nil {
		return snapshot.Summary{}, err
	}
	return sum, serr
}

func hydrateInContainer(ctx context.Context, w *Workspace, r io.Reader, l sandbox.OutputLimits) (int, error) {
	b, err := streamsOf(w)
	if err != nil {
		return 0, err
	}
	return b.HydrateWithin(ctx, r, l)
}

func (dockerDriver) persist(ctx context.Context, w *Workspace, exclude []string, manifestDigest string, out io.Writer) (snapshot.Summary, error) {
	return persistInContainer(ctx, w, exclude, manifestDigest, out)
}

func (dockerDriver) hydrate(ctx context.Context, w *Workspace, r io.Reader, l sandbox.OutputLimits) (int, error) {
	return hydrateInContainer(ctx, w, r, l)
}
