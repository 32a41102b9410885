package incontainer

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
)

// Persist streams the tar of the workspace root to out, as the file helper
// writes it inside the container (fshelper.OpPersist): the excluded paths
// and every mount point below the root are left out, no symlink is
// followed, and nothing is held in memory on either side. No archive API
// of the container runtime is used: it would not see mounts made inside
// the container, nor leave them out.
func (w *Workspace) Persist(ctx context.Context, exclude []string, out io.Writer) error {
	arg, err := json.Marshal(exclude)
	if err != nil {
		return err
	}
	return w.helperStream(ctx, fshelper.OpPersist, ".", string(arg), out, -1)
}

// helperStream runs a helper operation whose stdout is a stream (no
// Response) copied to out; a failure is reported on stderr with a non-zero
// exit status. max >= 0 bounds the stream: reading stops, and the
// operation fails, as soon as the helper sends more.
func (w *Workspace) helperStream(ctx context.Context, op, rel, arg string, out io.Writer, max int64) error {
	w.countCall()
	opCtx, cancel := withDeadline(ctx, op, arg)
	defer cancel()
	p, err := w.cache.ensure(opCtx, w)
	if err != nil {
		return w.runErr(ctx, opCtx, op, rel, arg, 0, err)
	}
	var cw *capWriter
	if max >= 0 {
		cw = &capWriter{w: out, limit: max}
		out = cw
	}
	res, err := w.r.Run(opCtx, Proc{Argv: []string{p, op, w.root, rel, arg}, User: "0:0", Out: out, Limit: maxStderrBytes})
	switch {
	case cw != nil && cw.over:
		return w.helperErr(op, rel, fmt.Errorf("%w: more than the %d bytes announced", ErrBadAnswer, max))
	case err != nil:
		return w.runErr(ctx, opCtx, op, rel, arg, maxStderrBytes, err)
	case res.ExitCode != 0:
		return helperFailed(op, rel, w.r.Name(), res)
	}
	return nil
}

// Hydrate extracts the tar on r below the workspace root with the file
// helper (fshelper.OpHydrate), which checks every member again as it
// goes. It returns the number of regular files written.
func (w *Workspace) Hydrate(ctx context.Context, r io.Reader) (int, error) {
	return w.HydrateWithin(ctx, r, sandbox.OutputLimits{})
}

// HydrateWithin is Hydrate writing at most what l allows (zero bounds
// mean the defaults).
func (w *Workspace) HydrateWithin(ctx context.Context, r io.Reader, l sandbox.OutputLimits) (int, error) {
	l = l.WithDefaults()
	resp, err := w.helper(ctx, fshelper.OpHydrate, ".", fshelper.HydrateArg(l), r)
	return int(resp.Size), err
}

// ReadFile implements backend.FileReader with the file helper
// (fshelper.OpRead): the size is checked first with a stat, then the
// content streams out of the container to out.
func (w *Workspace) ReadFile(ctx context.Context, rel string, out io.Writer, limit int64) (int64, error) {
	fi, err := w.Stat(ctx, rel)
	if err != nil {
		return 0, err
	}
	if !fi.IsRegular {
		return 0, fmt.Errorf("%s is not a regular file", rel)
	}
	if fi.Size > limit {
		return fi.Size, fmt.Errorf("%s is %d bytes: %w (%d)", rel, fi.Size, backend.ErrTooLarge, limit)
	}
	// The content may not exceed the size the stat gave: a helper that
	// streams more is cut off at once.
	cw := &countWriter{w: out}
	err = w.helperStream(ctx, fshelper.OpRead, rel, strconv.FormatInt(limit, 10), cw, fi.Size)
	return cw.n, err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
