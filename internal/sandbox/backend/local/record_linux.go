//go:build linux

package local

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

// ReadRecord returns the record name kept on the root (nil when there is
// none). A record of more than limit bytes fails with an error wrapping
// backend.ErrTooLarge; nothing more than limit bytes is read.
func (b *Backend) ReadRecord(_ context.Context, name string, limit int64) ([]byte, error) {
	d, err := openRootDir(b.root)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	buf := make([]byte, limit)
	n, err := unix.Fgetxattr(d.n(), RecordAttrPrefix+name, buf)
	switch {
	case errors.Is(err, unix.ENODATA) || errors.Is(err, unix.ENOTSUP):
		return nil, nil
	case errors.Is(err, unix.ERANGE):
		return nil, fmt.Errorf("record %s of %s: %w (%d bytes)", name, b.root, backend.ErrTooLarge, limit)
	case err != nil:
		return nil, fmt.Errorf("reading record %s of %s: %w", name, b.root, err)
	}
	return buf[:n], nil
}

// WriteRecord replaces the record name on the root with data; empty data
// removes it.
func (b *Backend) WriteRecord(_ context.Context, name string, data []byte) error {
	d, err := openRootDir(b.root)
	if err != nil {
		return err
	}
	defer d.Close()
	if len(data) == 0 {
		if err := unix.Fremovexattr(d.n(), RecordAttrPrefix+name); err != nil && !errors.Is(err, unix.ENODATA) {
			return fmt.Errorf("removing record %s of %s: %w", name, b.root, err)
		}
		return nil
	}
	err = unix.Fsetxattr(d.n(), RecordAttrPrefix+name, data, 0)
	switch {
	case errors.Is(err, unix.ENOSPC) || errors.Is(err, unix.E2BIG):
		return fmt.Errorf("record %s of %s would be %d bytes, more than its filesystem keeps in an extended attribute "+
			"beside the workspace marker (ext4: about 4 KiB in all): %w", name, b.root, len(data), err)
	case errors.Is(err, unix.ENOTSUP):
		return fmt.Errorf("workspace root %s is on a filesystem without user extended attributes: %w", b.root, err)
	case err != nil:
		return fmt.Errorf("writing record %s of %s: %w", name, b.root, err)
	}
	return nil
}
