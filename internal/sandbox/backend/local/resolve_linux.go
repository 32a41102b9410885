//go:build linux

package local

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noOpenat2 is set once openat2(2) has returned ENOSYS (kernels before 5.6
// or a seccomp filter); resolution then uses the openat(2) walk.
var noOpenat2 atomic.Bool

// resolveFlags make openat2 refuse any symlink and any escape from dirfd.
const resolveFlags = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

// openRoot opens the workspace root directory (which must not itself be a
// symlink).
func (b *Backend) openRoot(op string) (*fd, error) {
	n, err := openatRetry(unix.AT_FDCWD, b.root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			return nil, fmt.Errorf("%s: workspace root %s is not a directory (a symlink root is never followed)", op, b.root)
		}
		return nil, &fs.PathError{Op: op, Path: b.root, Err: err}
	}
	return newFd(n), nil
}

// openatRetry is openat(2) with O_CLOEXEC, retried on EINTR.
func openatRetry(dirfd int, name string, flags int, mode uint32) (int, error) {
	for {
		n, err := unix.Openat(dirfd, name, flags|unix.O_CLOEXEC, mode)
		if err != unix.EINTR {
			return n, err
		}
	}
}

// openBeneath opens rel (a cleaned relative path, "." for dirfd itself)
// below dirfd without following any symlink and without leaving dirfd. A
// symlink met on the way gives ELOOP, an escape EXDEV; a symlink as the last
// component is opened itself when flags hold O_PATH|O_NOFOLLOW (as openat2
// documents) and gives ELOOP otherwise.
func openBeneath(dirfd int, rel string, flags int, mode uint32) (int, error) { //nolint:unparam // mode is what open(2) takes with O_CREAT
	if !noOpenat2.Load() {
		how := &unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Resolve: resolveFlags}
		if flags&unix.O_CREAT != 0 {
			how.Mode = uint64(mode)
		}
		for tries := 0; ; tries++ {
			n, err := unix.Openat2(dirfd, rel, how)
			switch {
			case err == unix.EINTR, err == unix.EAGAIN && tries < 64:
				continue
			case err == unix.ENOSYS:
				noOpenat2.Store(true)
			default:
				return n, err
			}
			break
		}
	}
	return walkBeneath(dirfd, rel, flags, mode)
}

// walkBeneath is openBeneath for kernels without openat2: each directory
// component is opened with O_PATH|O_DIRECTORY|O_NOFOLLOW relative to the
// previous descriptor, so the kernel never follows a symlink; ".." is
// refused.
func walkBeneath(dirfd int, rel string, flags int, mode uint32) (int, error) {
	var names []string
	for _, n := range strings.Split(rel, "/") {
		switch n {
		case "", ".":
		case "..":
			return -1, unix.EXDEV
		default:
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return openatRetry(dirfd, ".", flags, mode)
	}
	cur := dirfd
	var owned *fd // cur when it is not dirfd
	defer func() { owned.Close() }()
	for _, name := range names[:len(names)-1] {
		next, err := openatRetry(cur, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
		if err != nil {
			return -1, symlinkAware(cur, name, err)
		}
		owned.Close()
		owned, cur = newFd(next), next
	}
	last := names[len(names)-1]
	n, err := openatRetry(cur, last, flags|unix.O_NOFOLLOW, mode)
	if err != nil {
		return -1, symlinkAware(cur, last, err)
	}
	return n, nil
}

// symlinkAware turns the ENOTDIR that O_DIRECTORY|O_NOFOLLOW gives for a
// symlink into ELOOP, as openat2 reports it.
func symlinkAware(dirfd int, name string, err error) error {
	var st unix.Stat_t
	if errors.Is(err, unix.ENOTDIR) && fstatat(dirfd, name, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return unix.ELOOP
	}
	return err
}

// fstatat is fstatat(2) with AT_SYMLINK_NOFOLLOW, retried on EINTR.
func fstatat(dirfd int, name string, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(dirfd, name, st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			return err
		}
	}
}

// pathErr wraps a resolution failure: ELOOP (a symlink) and EXDEV (an
// escape) become errors wrapping backend.ErrEscapesRoot; the rest a
// *fs.PathError (ENOENT matches fs.ErrNotExist).
func pathErr(op, rel string, err error) error {
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) {
		return escapeErr(op, rel)
	}
	return &fs.PathError{Op: op, Path: rel, Err: err}
}

// open resolves rel beneath the root; the caller closes the descriptor.
func (b *Backend) open(op, rel string, flags int) (*fd, error) {
	root, err := b.openRoot(op)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.openBeneath(rel, flags)
	if errors.Is(err, unix.ENOTDIR) && finalIsSymlink(root, rel) {
		err = unix.ELOOP // O_DIRECTORY|O_NOFOLLOW on a symlink gives ENOTDIR
	}
	if err != nil {
		return nil, pathErr(op, rel, err)
	}
	return f, nil
}

// finalIsSymlink reports whether rel (resolved beneath dir without
// following symlinks) is itself a symlink.
func finalIsSymlink(dir *fd, rel string) bool {
	f, err := dir.openBeneath(rel, unix.O_PATH|unix.O_NOFOLLOW)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.fstat()
	return err == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}

// mkdirAll opens (creating as needed) the directory rel beneath root and
// returns an O_PATH descriptor to it. Each directory it creates gets mode
// perm by an explicit chmod as soon as it exists.
func mkdirAll(op string, root *fd, rel string, perm uint32) (*fd, error) {
	n, err := unix.FcntlInt(uintptr(root.n()), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	cur := newFd(n)
	defer func() { cur.Close() }()
	done := ""
	for _, name := range strings.Split(rel, "/") {
		if name == "" || name == "." {
			continue
		}
		done = strings.TrimPrefix(done+"/"+name, "/")
		next, isNew, err := mkdirAt(cur, name)
		if err != nil {
			return nil, pathErr(op, done, err)
		}
		cur.Close()
		cur = next
		if isNew {
			// Set the mode at once, not after the walk: a concurrent
			// operation may chmod this directory as soon as it exists
			// (a sandbox_dir declared for it), and must have the last word.
			if err := chmodFd(cur, perm); err != nil {
				return nil, fmt.Errorf("%s %s: chmod: %w", op, done, err)
			}
		}
	}
	return cur.take(), nil
}

// mkdirAt opens the directory name below dir with O_PATH, creating it (mode
// 0700 until chmod-ed) when missing; isNew says it was created here.
func mkdirAt(dir *fd, name string) (f *fd, isNew bool, err error) {
	const flags = unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW
	f, err = dir.openBeneath(name, flags)
	if errors.Is(err, unix.ENOENT) {
		merr := unix.Mkdirat(dir.n(), name, 0o700)
		if merr != nil && !errors.Is(merr, unix.EEXIST) {
			return nil, false, merr
		}
		isNew = merr == nil
		f, err = dir.openBeneath(name, flags)
	}
	if err != nil {
		return nil, false, symlinkAware(dir.n(), name, err)
	}
	return f, isNew, nil
}

// chmodFd sets the mode of the file behind f (which may be an O_PATH
// descriptor) through its /proc/self/fd magic link, which names exactly that
// inode and cannot be redirected by a symlink. Without /proc it reopens the
// descriptor read-only and uses fchmod.
func chmodFd(f *fd, mode uint32) error {
	err := unix.Fchmod(f.n(), mode)
	if err == nil || !errors.Is(err, unix.EBADF) {
		return err
	}
	err = unix.Chmod(fmt.Sprintf("/proc/self/fd/%d", f.n()), mode)
	if !errors.Is(err, unix.ENOENT) {
		return err
	}
	r, oerr := f.openAt(".", unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if oerr != nil {
		return err
	}
	defer r.Close()
	return unix.Fchmod(r.n(), mode)
}
