//go:build linux

package local

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/checksum"
	"golang.org/x/sys/unix"
)

// Stat describes rel like lstat(2): a symlink as the last component is
// described, not followed (IsSymlink true). Group and Owner are the group's
// and the owner's names, or the decimal ids when the host has no name for them. A missing path gives an
// error matching fs.ErrNotExist; a symlink on the way, one wrapping
// backend.ErrEscapesRoot.
func (b *Backend) Stat(ctx context.Context, rel string) (backend.FileInfo, error) {
	f, rel, err := b.openPath(ctx, "stat", rel)
	if err != nil {
		return backend.FileInfo{}, err
	}
	defer f.Close()
	st, err := f.fstat()
	if err != nil {
		return backend.FileInfo{}, &fs.PathError{Op: "stat", Path: rel, Err: err}
	}
	typ := st.Mode & unix.S_IFMT
	return backend.FileInfo{
		Path:      rel,
		IsDir:     typ == unix.S_IFDIR,
		IsRegular: typ == unix.S_IFREG,
		IsSymlink: typ == unix.S_IFLNK,
		Perm:      fs.FileMode(st.Mode & 0o777),
		Size:      st.Size,
		Gid:       int(st.Gid),
		Group:     groupName(int(st.Gid)),
		Uid:       int(st.Uid),
		Owner:     userName(int(st.Uid)),
	}, nil
}

// openPath checks ctx and rel and opens rel with O_PATH|O_NOFOLLOW (a final
// symlink is opened itself). It returns the cleaned rel.
func (b *Backend) openPath(ctx context.Context, op, rel string) (*fd, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, rel, err
	}
	rel, err := cleanRel(op, rel)
	if err != nil {
		return nil, rel, err
	}
	f, err := b.open(op, rel, unix.O_PATH|unix.O_NOFOLLOW)
	return f, rel, err
}

// openNotLink is openPath refusing a final symlink (it would have to be
// followed) with an error wrapping backend.ErrEscapesRoot.
func (b *Backend) openNotLink(ctx context.Context, op, rel string) (*fd, string, error) {
	f, rel, err := b.openPath(ctx, op, rel)
	if err != nil {
		return nil, rel, err
	}
	defer f.Close()
	st, err := f.fstat()
	if err != nil {
		return nil, rel, &fs.PathError{Op: op, Path: rel, Err: err}
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return nil, rel, escapeErr(op, rel)
	}
	return f.take(), rel, nil
}

// MkdirAll creates the directory rel and any missing parents beneath the
// root. Every directory it creates gets exactly perm's permission bits
// (explicit chmod; the umask does not matter); existing directories are
// left alone. A symlink on the way gives an error wrapping
// backend.ErrEscapesRoot; an existing non-directory, ENOTDIR.
func (b *Backend) MkdirAll(ctx context.Context, rel string, perm fs.FileMode) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	rel, err := cleanRel("mkdir", rel)
	if err != nil {
		return err
	}
	root, err := b.openRoot("mkdir")
	if err != nil {
		return err
	}
	defer root.Close()
	f, err := mkdirAll("mkdir", root, rel, unixMode(perm))
	if err != nil {
		return err
	}
	return f.Close()
}

// Chmod sets the mode of rel to perm (permission bits plus setuid, setgid
// and sticky when given). rel itself must not be a symlink and no symlink on
// the way is followed (errors wrap backend.ErrEscapesRoot).
func (b *Backend) Chmod(ctx context.Context, rel string, perm fs.FileMode) error {
	f, rel, err := b.openNotLink(ctx, "chmod", rel)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := chmodFd(f, unixMode(perm)); err != nil {
		return &fs.PathError{Op: "chmod", Path: rel, Err: err}
	}
	return nil
}

// Chgrp changes the group of rel to group: a group name known to the host,
// or a decimal gid. An unknown group is an error naming it. rel itself must
// not be a symlink and no symlink on the way is followed.
func (b *Backend) Chgrp(ctx context.Context, rel string, group string) error {
	gid, err := lookupGid(group)
	if err != nil {
		return fmt.Errorf("chgrp %s: %w", rel, err)
	}
	f, rel, err := b.openNotLink(ctx, "chgrp", rel)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.chown(-1, gid); err != nil {
		return &fs.PathError{Op: "chgrp", Path: rel, Err: err}
	}
	return nil
}

// HashFile streams the regular file rel through SHA-256 in 1 MiB chunks and
// returns the lower-case hex digest and the number of bytes read. A symlink
// (anywhere) gives an error wrapping backend.ErrEscapesRoot; a non-regular
// file an error. With CacheFileDigests, a file whose stat matches its
// digest cache entry is not read.
func (b *Backend) HashFile(ctx context.Context, rel string) (string, int64, error) {
	if err := ctx.Err(); err != nil {
		return "", 0, err
	}
	rel, err := cleanRel("hash", rel)
	if err != nil {
		return "", 0, err
	}
	start := time.Now().UnixNano()
	raw, err := b.open("hash", rel, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK)
	if err != nil {
		return "", 0, err
	}
	f, err := regularFile(raw, rel)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	if !b.fileDigests {
		return hashStream(ctx, f)
	}
	return b.hashCached(ctx, f, rel, start)
}

// regularFile checks that f (opened O_NONBLOCK) is a regular file, clears
// O_NONBLOCK and moves it into an *os.File; on error f is closed.
func regularFile(f *fd, name string) (*os.File, error) {
	defer f.Close()
	st, err := f.fstat()
	if err == nil && st.Mode&unix.S_IFMT != unix.S_IFREG {
		err = errors.New("not a regular file")
	}
	if err == nil {
		err = unix.SetNonblock(f.n(), false)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return f.file(name), nil
}

func hashStream(ctx context.Context, f *os.File) (string, int64, error) {
	h := sha256.New()
	n, err := checksum.CopyChunks(ctx, h, f)
	if err != nil {
		return "", n, fmt.Errorf("hash %s: %w", f.Name(), err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// Remove deletes the file, symlink or empty directory rel (a symlink is
// removed itself), and the temporary file a killed write of rel left
// behind. A missing rel is not an error; the root cannot be removed this
// way (see Destroy).
func (b *Backend) Remove(ctx context.Context, rel string) error {
	return b.remove(ctx, "remove", rel, false)
}

// RemoveAll deletes rel and everything below it, walking directory
// descriptors and never following a symlink (symlinks are removed
// themselves). A missing rel is not an error. RemoveAll(".") empties the
// workspace but keeps the root directory.
func (b *Backend) RemoveAll(ctx context.Context, rel string) error {
	return b.remove(ctx, "removeall", rel, true)
}

func (b *Backend) remove(ctx context.Context, op, rel string, all bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	rel, err := cleanRel(op, rel)
	if err != nil {
		return err
	}
	if rel == "." {
		if !all {
			return fmt.Errorf("%s: refusing to remove the workspace root", op)
		}
		if err := checkNoMounts(b.root); err != nil {
			return err
		}
		d, err := b.open(op, ".", unix.O_RDONLY|unix.O_DIRECTORY)
		if err != nil {
			return err
		}
		return removeContents(ctx, d.file(b.root))
	}
	dir, base := path.Split(rel)
	pfd, err := b.open(op, path.Clean("./"+dir), unix.O_PATH|unix.O_DIRECTORY)
	if errors.Is(err, fs.ErrNotExist) || isNotDir(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer pfd.Close()
	// Only a directory can hold mount points: a symlink (even one to a
	// directory holding some, such as /etc) is removed as a link, so its
	// target is neither looked at nor touched.
	if st, err := pfd.statAt(base); all && err == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
		if err := checkNoMounts(filepath.Join(b.root, filepath.FromSlash(rel))); err != nil {
			return err
		}
	}
	// A temporary left by a killed write of rel goes with it (it is never
	// in use: only a write of rel creates it, and it holds it locked).
	_ = sweepTemp(pfd, tempName(base))
	if err := removeEntry(ctx, pfd, base, all); err != nil {
		return &fs.PathError{Op: op, Path: rel, Err: err}
	}
	return nil
}

// removeEntry unlinks name below the directory dir; a directory is emptied
// first when all is set. A missing name is not an error.
func removeEntry(ctx context.Context, dir *fd, name string, all bool) error {
	st, err := dir.statAt(name)
	if err != nil {
		return ignoreMissing(err)
	}
	flag := 0
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		flag = unix.AT_REMOVEDIR
		if all {
			d, err := dir.openAt(name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
			if err != nil {
				return err
			}
			if err := removeContents(ctx, d.file(name)); err != nil {
				return err
			}
		}
	}
	if err := unix.Unlinkat(dir.n(), name, flag); err != nil && !errors.Is(err, unix.ENOENT) {
		return err
	}
	return nil
}

// removeContents removes every entry of the directory d, then closes d.
func removeContents(ctx context.Context, d *os.File) error {
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return err
	}
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := removeEntry(ctx, dirOf(d), name, true); err != nil {
			return fmt.Errorf("%s: %w", path.Join(d.Name(), name), err)
		}
	}
	return nil
}

// unixMode converts permission, setuid, setgid and sticky bits of an
// fs.FileMode to a mode_t.
func unixMode(m fs.FileMode) uint32 {
	mode := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		mode |= unix.S_ISUID
	}
	if m&fs.ModeSetgid != 0 {
		mode |= unix.S_ISGID
	}
	if m&fs.ModeSticky != 0 {
		mode |= unix.S_ISVTX
	}
	return mode
}
