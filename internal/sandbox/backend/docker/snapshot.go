package docker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/fshelper"
)

// Persist streams the tar of the workspace root to w, as the file helper
// writes it inside the container (fshelper.OpPersist): the excluded paths
// and every mount point below the root are left out, no symlink is
// followed, and nothing is held in memory on either side. The Docker
// archive API is not used: it would not see mounts made inside the
// container, nor leave them out.
func (b *Backend) Persist(ctx context.Context, exclude []string, w io.Writer) error {
	arg, err := json.Marshal(exclude)
	if err != nil {
		return err
	}
	return b.helperStream(ctx, fshelper.OpPersist, ".", string(arg), w)
}

// helperStream runs a helper operation whose stdout is a stream (no
// Response) copied to w; a failure is reported on stderr with a non-zero
// exit status.
func (b *Backend) helperStream(ctx context.Context, op, rel, arg string, w io.Writer) error {
	helperCalls.Add(1)
	p, err := b.d.ensureHelper(ctx, b.id)
	if err != nil {
		return err
	}
	res, err := b.d.run(ctx, b.id, execSpec{argv: []string{p, op, b.root, rel, arg}, user: "0:0", out: w, limit: 64 << 10})
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("file helper %s %s in container %s failed: %s", op, rel, short(b.id), bytes.TrimSpace(res.Stderr))
	}
	return nil
}

// Hydrate extracts the tar on r below the workspace root with the file
// helper (fshelper.OpHydrate), which checks every member again as it
// goes. It returns the number of regular files written.
func (b *Backend) Hydrate(ctx context.Context, r io.Reader) (int, error) {
	resp, err := b.helper(ctx, fshelper.OpHydrate, ".", "", r)
	return int(resp.Size), err
}

// ReadFile implements backend.FileReader with the file helper
// (fshelper.OpRead): the size is checked first with a stat, then the
// content streams out of the `docker exec` to w.
func (b *Backend) ReadFile(ctx context.Context, rel string, w io.Writer, limit int64) (int64, error) {
	fi, err := b.Stat(ctx, rel)
	if err != nil {
		return 0, err
	}
	if !fi.IsRegular {
		return 0, fmt.Errorf("%s is not a regular file", rel)
	}
	if fi.Size > limit {
		return fi.Size, fmt.Errorf("%s is %d bytes: %w (%d)", rel, fi.Size, backend.ErrTooLarge, limit)
	}
	cw := &countWriter{w: w}
	err = b.helperStream(ctx, fshelper.OpRead, rel, strconv.FormatInt(limit, 10), cw)
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
