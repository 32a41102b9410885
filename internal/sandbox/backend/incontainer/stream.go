package incontainer

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/fshelper"
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
	return w.helperStream(ctx, fshelper.OpPersist, ".", string(arg), out)
}

// helperStream runs a helper operation whose stdout is a stream (no
// Response) copied to out; a failure is reported on stderr with a non-zero
// exit status.
func (w *Workspace) helperStream(ctx context.Context, op, rel, arg string, out io.Writer) error {
	helperCalls.Add(1)
	p, err := w.cache.ensure(ctx, w)
	if err != nil {
		return err
	}
	res, err := w.r.Run(ctx, Proc{Argv: []string{p, op, w.root, rel, arg}, User: "0:0", Out: out, Limit: 64 << 10})
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
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
	cw := &countWriter{w: out}
	err = w.helperStream(ctx, fshelper.OpRead, rel, strconv.FormatInt(limit, 10), cw)
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
