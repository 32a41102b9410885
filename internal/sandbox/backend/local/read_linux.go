//go:build linux

package local

import (
	"context"
	"fmt"
	"io"

	"golang.org/x/sys/unix"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

// ReadFile implements backend.FileReader: rel is opened beneath the root
// without following symlinks, must be a regular file of at most limit
// bytes, and is copied to w.
func (b *Backend) ReadFile(ctx context.Context, rel string, w io.Writer, limit int64) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	rel, err := cleanRel("read", rel)
	if err != nil {
		return 0, err
	}
	fd, err := b.open("read", rel, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK)
	if err != nil {
		return 0, err
	}
	f, err := regularFile(fd, rel)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if fi.Size() > limit {
		return fi.Size(), fmt.Errorf("%s is %d bytes: %w (%d)", rel, fi.Size(), backend.ErrTooLarge, limit)
	}
	n, err := io.Copy(w, io.LimitReader(f, limit+1))
	if err == nil && n > limit {
		err = fmt.Errorf("%s grew past %d bytes while read: %w", rel, limit, backend.ErrTooLarge)
	}
	return n, err
}
