//go:build linux

package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/digestcache"
)

// WalkFiles lists every regular file below the directory rel, at any depth,
// sorted by Rel in byte order; Rel is relative to rel. Each regular file is
// streamed through SHA-256 (Size is the number of bytes hashed). Symlinks are
// listed, never followed, with SHA256 "", Size 0 and their own permission
// bits; other non-regular files are skipped and directories are only
// descended into. A file whose device, inode, size and times match the
// digest cache's entry for it is not read (see package digestcache). rel itself must be a directory that is not a symlink
// (errors wrap backend.ErrEscapesRoot for a symlink on the way).
func (b *Backend) WalkFiles(ctx context.Context, rel string) ([]backend.TreeFile, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rel, err := cleanRel("walk", rel)
	if err != nil {
		return nil, err
	}
	d, err := b.open("walk", rel, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW)
	if err != nil {
		return nil, err
	}
	if err := digestcache.CheckOutside(filepath.Join(b.root, rel)); err != nil {
		return nil, err
	}
	w := &walker{ctx: ctx, digests: digestcache.Open(filepath.Join(b.root, rel)), out: []backend.TreeFile{}}
	if err := w.walkDir(d.file(rel), ""); err != nil {
		return nil, err
	}
	_ = w.digests.Save() // a cache that cannot be written only costs speed
	files := w.out
	slices.SortFunc(files, func(a, b backend.TreeFile) int { return strings.Compare(a.Rel, b.Rel) })
	return files, nil
}

// walker is one WalkFiles: what it found so far and the digest cache of
// the walked directory.
type walker struct {
	ctx     context.Context
	digests *digestcache.Set
	out     []backend.TreeFile
	// written, when set, makes the walk record the files this backend
	// wrote (RememberWritten): it returns the digest of the write of the
	// tree-relative name when key still matches it. Files neither written
	// nor cached are then skipped, never hashed.
	written func(name string, key digestcache.Stat) (string, bool)
}

// walkDir appends the files below d (tree-relative prefix prefix) to w.out
// and closes d.
func (w *walker) walkDir(d *os.File, prefix string) error {
	ctx, out := w.ctx, &w.out
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return fmt.Errorf("walk %s: %w", d.Name(), err)
	}
	dir := dirOf(d)
	self, err := dir.fstat()
	if err != nil {
		return &fs.PathError{Op: "walk", Path: prefix, Err: err}
	}
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		rel := prefix + name
		start := w.digests.Start()
		st, err := dir.statAt(name)
		if err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue // removed while walking
			}
			if errors.Is(err, unix.ENOTCONN) {
				continue // a FUSE mount whose helper died: not part of the tree
			}
			return &fs.PathError{Op: "walk", Path: rel, Err: err}
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			*out = append(*out, backend.TreeFile{Rel: rel, Perm: fs.FileMode(st.Mode & 0o777), Uid: int(st.Uid), Gid: int(st.Gid)})
		case unix.S_IFDIR:
			if st.Dev != self.Dev {
				// A mount point (a storage mount inside the tree): its
				// files belong to another filesystem, never to this tree,
				// so they are neither listed nor ever removed as extras.
				continue
			}
			sub, err := dir.openAt(name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
			if err != nil {
				return &fs.PathError{Op: "walk", Path: rel, Err: err}
			}
			if err := w.walkDir(sub.file(rel), rel+"/"); err != nil {
				return err
			}
		case unix.S_IFREG:
			key := digestcache.StatOf(&st)
			if sum, ok := w.digests.Lookup(rel, key); ok {
				*out = append(*out, backend.TreeFile{Rel: rel, Size: key.Size, SHA256: sum, Perm: fs.FileMode(st.Mode & 0o777),
					Uid: int(st.Uid), Gid: int(st.Gid)})
				continue
			}
			if w.written != nil {
				if sum, ok := w.written(rel, key); ok {
					w.digests.StoreWritten(rel, key, sum)
				}
				continue
			}
			raw, err := dir.openAt(name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
			if err != nil {
				return &fs.PathError{Op: "walk", Path: rel, Err: err}
			}
			f, err := regularFile(raw, rel)
			if err != nil {
				return err
			}
			sum, n, err := hashStream(ctx, f)
			f.Close()
			if err != nil {
				return err
			}
			if n == key.Size {
				w.digests.Store(rel, key, start, sum)
			}
			*out = append(*out, backend.TreeFile{Rel: rel, Size: n, SHA256: sum, Perm: fs.FileMode(st.Mode & 0o777),
				Uid: int(st.Uid), Gid: int(st.Gid)})
		}
	}
	return nil
}
