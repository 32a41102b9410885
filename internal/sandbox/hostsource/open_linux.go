//go:build linux

package hostsource

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// openatRetry is openat(2) retried on EINTR, always with O_CLOEXEC.
func openatRetry(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// sameInode reports whether the open descriptor fd is the file described by
// an earlier (l)stat.
func sameInode(fd int, fi os.FileInfo) (bool, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return false, err
	}
	want, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false, fmt.Errorf("no inode information for %s", fi.Name())
	}
	return st.Dev == want.Dev && st.Ino == want.Ino, nil
}

// openPinned opens t.abs by walking directory descriptors from t.anchor:
// every component is opened with O_NOFOLLOW (directories also with
// O_DIRECTORY) relative to its parent's descriptor and compared with the
// lstat taken by inspect. The leaf is opened as a directory when dir is true,
// else read-only and non-blocking (so a fifo swapped in cannot hang the open;
// the flag is cleared again before returning).
func openPinned(t *hostTarget, dir bool) (*os.File, error) {
	fd, err := openatRetry(unix.AT_FDCWD, t.anchor, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, fault(sandbox.ReasonPathChangedDuringCopy, childName(t.base, t.anchor), err)
	}
	if same, err := sameInode(fd, t.anchorInfo); err != nil || !same {
		unix.Close(fd)
		return nil, fault(sandbox.ReasonPathChangedDuringCopy, childName(t.base, t.anchor), err)
	}
	cur := t.anchor
	for i, name := range t.comps {
		cur = filepath.Join(cur, name)
		last := i == len(t.comps)-1
		flags := unix.O_RDONLY | unix.O_NOFOLLOW
		if !last || dir {
			flags |= unix.O_DIRECTORY
		} else {
			flags |= unix.O_NONBLOCK
		}
		nfd, err := openatRetry(fd, name, flags)
		if err != nil {
			err = openFault(fd, name, err, childName(t.base, cur))
		}
		unix.Close(fd)
		if err != nil {
			return nil, err
		}
		fd = nfd
		if same, err := sameInode(fd, t.infos[i]); err != nil || !same {
			unix.Close(fd)
			return nil, fault(sandbox.ReasonPathChangedDuringCopy, childName(t.base, cur), err)
		}
	}
	if !dir {
		if err := unix.SetNonblock(fd, false); err != nil {
			unix.Close(fd)
			return nil, fault("", "", err)
		}
	}
	return os.NewFile(uintptr(fd), t.abs), nil
}

// openFault maps an openat failure of name below dirfd during a pinned walk
// to a Python SDK reason: a symlink met there (ELOOP, or ENOTDIR when O_DIRECTORY
// was asked for) is symlink_not_supported; a vanished or retyped component
// means the path changed since it was checked.
func openFault(dirfd int, name string, err error, child string) *sourceFault {
	var st unix.Stat_t
	if errors.Is(err, unix.ELOOP) ||
		(fstatatRetry(dirfd, name, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK) {
		return fault(sandbox.ReasonSymlinkNotSupported, child, err)
	}
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
		return fault(sandbox.ReasonPathChangedDuringCopy, child, err)
	}
	return fault("", child, err)
}
