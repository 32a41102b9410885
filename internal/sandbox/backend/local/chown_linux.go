//go:build linux

package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// Chown changes the owner and the group of rel: names known to the system,
// or decimal ids. An owner with no group gives the owner's primary group
// too, as `chown owner:` does (a uid no account has leaves the group
// alone); no owner leaves the owner alone. With tree, every directory and
// regular file below rel changes too; a symlink is never followed nor
// changed, and a directory on another filesystem (a mount point) is never
// entered. rel itself must not be a symlink. Giving a file to another user
// needs root: without it, the error says so.
func (b *Backend) Chown(ctx context.Context, rel, owner, group string, tree bool) error {
	uid, gid := -1, -1
	var err error
	if owner != "" {
		if uid, err = lookupUid(owner); err != nil {
			return fmt.Errorf("chown %s: %w", rel, err)
		}
		if err := CheckOwner(owner); err != nil {
			return fmt.Errorf("chown %s: %w", rel, err)
		}
	}
	if owner != "" && group == "" {
		if g, ok := primaryGid(owner); ok {
			gid = g
		}
	}
	if group != "" {
		if gid, err = lookupGid(group); err != nil {
			return fmt.Errorf("chown %s: %w", rel, err)
		}
	}
	f, rel, err := b.openNotLink(ctx, "chown", rel)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.chown(uid, gid); err != nil {
		return &fs.PathError{Op: "chown", Path: rel, Err: err}
	}
	st, err := f.fstat()
	if err != nil || !tree || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return err
	}
	d, err := f.openAt(".", unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return &fs.PathError{Op: "chown", Path: rel, Err: err}
	}
	return chownBelow(ctx, d.file(rel), rel, st.Dev, uid, gid)
}

// chownBelow changes the owner and group of every directory and regular
// file below d (named name, on device dev) and closes d.
func chownBelow(ctx context.Context, d *os.File, name string, dev uint64, uid, gid int) error {
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return fmt.Errorf("chown %s: %w", name, err)
	}
	dir := dirOf(d)
	for _, n := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		rel := name + "/" + n
		st, err := dir.statAt(n)
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTCONN) {
			continue // removed meanwhile, or a dead FUSE mount: not part of the tree
		}
		if err != nil {
			return &fs.PathError{Op: "chown", Path: rel, Err: err}
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFREG:
			// A file swapped for a symlink since the stat changes the link
			// itself, never its target.
			if err := unix.Fchownat(dir.n(), n, uid, gid, unix.AT_SYMLINK_NOFOLLOW); err != nil && !errors.Is(err, unix.ENOENT) {
				return &fs.PathError{Op: "chown", Path: rel, Err: err}
			}
		case unix.S_IFDIR:
			if st.Dev != dev {
				continue // a mount point: another filesystem's files
			}
			sub, err := dir.openAt(n, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
			if err != nil {
				return &fs.PathError{Op: "chown", Path: rel, Err: err}
			}
			if err := sub.chown(uid, gid); err != nil {
				sub.Close()
				return &fs.PathError{Op: "chown", Path: rel, Err: err}
			}
			if err := chownBelow(ctx, sub.file(rel), rel, dev, uid, gid); err != nil {
				return err
			}
		}
	}
	return nil
}
