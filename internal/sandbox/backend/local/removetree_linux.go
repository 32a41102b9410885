//go:build linux

package local

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

// RemoveTree removes the listed files below the directory rel, then the
// directories left empty, then rel itself when nothing but empty
// directories remains below it (see backend.Backend). Every file is removed
// through a descriptor of its directory resolved beneath rel without
// following a symlink; a directory on another filesystem (a mount point) is
// never entered, and a listed path that is a directory is kept. The
// temporary file a killed write of a listed file left behind goes too.
func (b *Backend) RemoveTree(ctx context.Context, rel string, files []string) (backend.RemoveReport, error) {
	var rep backend.RemoveReport
	info, err := b.Stat(ctx, rel)
	if errors.Is(err, fs.ErrNotExist) || isNotDir(err) || (err == nil && !info.IsDir) {
		return backend.RemoveReport{Gone: true}, nil
	}
	if err != nil {
		return rep, err
	}
	rel, _ = cleanRel("remove", rel) // checked by Stat
	top, err := b.open("remove", rel, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW)
	if err != nil {
		return rep, err
	}
	defer top.Close()
	st, err := top.fstat()
	if err != nil {
		return rep, &fs.PathError{Op: "remove", Path: rel, Err: err}
	}
	t := &treeRemoval{top: top, dev: st.Dev, dirs: map[string]*fd{}, parents: map[string]bool{}}
	defer closeDirs(t.dirs)
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		kept, err := t.removeFile(f)
		if err != nil {
			return rep, &fs.PathError{Op: "remove", Path: joinPath(rel, f), Err: err}
		}
		if kept {
			rep.Kept = append(rep.Kept, f)
		}
	}
	t.pruneDirs()
	d, err := top.openAt(".", unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return rep, &fs.PathError{Op: "remove", Path: rel, Err: err}
	}
	w := &walker{ctx: ctx}
	if err := w.walkDir(d.file(rel), ""); err != nil {
		return rep, err
	}
	rep.Left = len(w.out)
	if rep.Left == 0 && rel != "." {
		return rep, b.RemoveAll(ctx, rel)
	}
	return rep, nil
}

// treeRemoval is the state of one RemoveTree: the tree's directory, its
// device, and descriptors of the directories files were removed from.
type treeRemoval struct {
	top     *fd
	dev     uint64
	dirs    map[string]*fd // tree-relative directory -> O_PATH descriptor, nil when unusable
	parents map[string]bool
}

// removeFile unlinks the tree-relative file f; a directory there is kept
// (kept true). A missing f, or one whose directory is missing, a symlink or
// a mount point, is skipped.
func (t *treeRemoval) removeFile(f string) (kept bool, err error) {
	f, err = cleanRel("remove", f)
	if err != nil {
		return false, err
	}
	if f == "." {
		return false, nil
	}
	dir, base := path.Split(f)
	dir = path.Clean("./" + dir)
	pfd := t.dir(dir)
	if pfd == nil {
		return false, nil
	}
	for d := dir; d != "."; d = path.Dir(d) {
		t.parents[d] = true
	}
	_ = sweepTemp(pfd, tempName(base))
	st, err := pfd.statAt(base)
	if err != nil {
		return false, ignoreMissing(err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		return true, nil
	}
	return false, ignoreMissing(unix.Unlinkat(pfd.n(), base, 0))
}

// dir returns a descriptor of the tree-relative directory d, resolved
// beneath the tree without following symlinks, or nil when it is missing,
// not a directory or on another filesystem.
func (t *treeRemoval) dir(d string) *fd {
	if f, ok := t.dirs[d]; ok {
		return f
	}
	f, err := t.top.openBeneath(d, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW)
	if err == nil {
		if st, err := f.fstat(); err != nil || st.Dev != t.dev {
			f.Close()
			f = nil
		}
	}
	t.dirs[d] = f
	return f
}

// pruneDirs removes the directories files were removed from, deepest
// first, each only when empty (rmdir fails harmlessly otherwise, and on a
// mount point).
func (t *treeRemoval) pruneDirs() {
	ordered := make([]string, 0, len(t.parents))
	for d := range t.parents {
		ordered = append(ordered, d)
	}
	sort.Slice(ordered, func(i, j int) bool {
		ci, cj := strings.Count(ordered[i], "/"), strings.Count(ordered[j], "/")
		if ci != cj {
			return ci > cj
		}
		return ordered[i] > ordered[j]
	})
	for _, d := range ordered {
		if pfd := t.dir(path.Dir(d)); pfd != nil {
			_ = unix.Unlinkat(pfd.n(), path.Base(d), unix.AT_REMOVEDIR)
		}
	}
}

func joinPath(base, rel string) string {
	if base == "." {
		return rel
	}
	return base + "/" + rel
}

// removeEmptyDirs removes the directory name below parent and the
// directories below it, deepest first, when none of them holds anything
// but directories; a symlink is never followed and another filesystem
// (dev differs) is never entered. It returns unix.ENOTEMPTY, removing
// nothing more, when anything else is found.
func removeEmptyDirs(parent *fd, name string, dev uint64) error {
	d, err := parent.openAt(name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	if st, err := d.fstat(); err != nil || st.Dev != dev {
		d.Close()
		return unix.ENOTEMPTY
	}
	f := d.file(name)
	entries, err := f.ReadDir(-1)
	if err != nil {
		f.Close()
		return err
	}
	for _, e := range entries {
		if !e.IsDir() {
			f.Close()
			return unix.ENOTEMPTY
		}
		if err := removeEmptyDirs(dirOf(f), e.Name(), dev); err != nil {
			f.Close()
			return err
		}
	}
	f.Close()
	return unix.Unlinkat(parent.n(), name, unix.AT_REMOVEDIR)
}
