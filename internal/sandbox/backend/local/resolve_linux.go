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
func (b *Backend) openRoot(op string) (int, error) {
	fd, err := openatRetry(unix.AT_FDCWD, b.root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			return -1, fmt.Errorf("%s: workspace root %s is not a directory (a symlink root is never followed)", op, b.root)
		}
		return -1, &fs.PathError{Op: op, Path: b.root, Err: err}
	}
	return fd, nil
}

// openatRetry is openat(2) with O_CLOEXEC, retried on EINTR.
func openatRetry(dirfd int, name string, flags int, mode uint32) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags|unix.O_CLOEXEC, mode)
		if err != unix.EINTR {
			return fd, err
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
			fd, err := unix.Openat2(dirfd, rel, how)
			switch {
			case err == unix.EINTR, err == unix.EAGAIN && tries < 64:
				continue
			case err == unix.ENOSYS:
				noOpenat2.Store(true)
			default:
				return fd, err
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
	closeCur := func() {
		if cur != dirfd {
			unix.Close(cur)
		}
	}
	defer func() { closeCur() }()
	for _, name := range names[:len(names)-1] {
		fd, err := openatRetry(cur, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
		if err != nil {
			return -1, symlinkAware(cur, name, err)
		}
		closeCur()
		cur = fd
	}
	last := names[len(names)-1]
	fd, err := openatRetry(cur, last, flags|unix.O_NOFOLLOW, mode)
	if err != nil {
		return -1, symlinkAware(cur, last, err)
	}
	return fd, nil
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
func (b *Backend) open(op, rel string, flags int) (int, error) {
	root, err := b.openRoot(op)
	if err != nil {
		return -1, err
	}
	defer unix.Close(root)
	fd, err := openBeneath(root, rel, flags, 0)
	if errors.Is(err, unix.ENOTDIR) && finalIsSymlink(root, rel) {
		err = unix.ELOOP // O_DIRECTORY|O_NOFOLLOW on a symlink gives ENOTDIR
	}
	if err != nil {
		return -1, pathErr(op, rel, err)
	}
	return fd, nil
}

// finalIsSymlink reports whether rel (resolved beneath dirfd without
// following symlinks) is itself a symlink.
func finalIsSymlink(dirfd int, rel string) bool {
	fd, err := openBeneath(dirfd, rel, unix.O_PATH|unix.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}

// mkdirAll opens (creating as needed) the directory rel beneath rootfd and
// returns an O_PATH descriptor to it. Created directories get mode perm by
// an explicit chmod once the whole chain exists.
func mkdirAll(op string, rootfd int, rel string, perm uint32) (int, error) {
	cur, err := unix.Dup(rootfd)
	if err != nil {
		return -1, err
	}
	done := ""
	for _, name := range strings.Split(rel, "/") {
		if name == "" || name == "." {
			continue
		}
		done = strings.TrimPrefix(done+"/"+name, "/")
		fd, err := openBeneath(cur, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
		isNew := false
		if errors.Is(err, unix.ENOENT) {
			if merr := unix.Mkdirat(cur, name, 0o700); merr != nil && !errors.Is(merr, unix.EEXIST) {
				unix.Close(cur)
				return -1, pathErr(op, done, merr)
			} else if merr == nil {
				isNew = true
			}
			fd, err = openBeneath(cur, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
		}
		if err != nil {
			err = pathErr(op, done, symlinkAware(cur, name, err))
		}
		unix.Close(cur)
		if err != nil {
			return -1, err
		}
		cur = fd
		if isNew {
			// Set the mode at once, not after the walk: a concurrent
			// operation may chmod this directory as soon as it exists
			// (a sandbox_dir declared for it), and must have the last word.
			if err := chmodFd(fd, perm); err != nil {
				unix.Close(cur)
				return -1, fmt.Errorf("%s %s: chmod: %w", op, done, err)
			}
		}
	}
	return cur, nil
}

// chmodFd sets the mode of the file behind fd (which may be an O_PATH
// descriptor) through its /proc/self/fd magic link, which names exactly that
// inode and cannot be redirected by a symlink. Without /proc it reopens the
// descriptor read-only and uses fchmod.
func chmodFd(fd int, mode uint32) error {
	err := unix.Fchmod(fd, mode)
	if err == nil || !errors.Is(err, unix.EBADF) {
		return err
	}
	err = unix.Chmod(fmt.Sprintf("/proc/self/fd/%d", fd), mode)
	if !errors.Is(err, unix.ENOENT) {
		return err
	}
	rfd, oerr := openatRetry(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if oerr != nil {
		return err
	}
	defer unix.Close(rfd)
	return unix.Fchmod(rfd, mode)
}
