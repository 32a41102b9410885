//go:build linux

package local

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// fd owns a file descriptor. Close closes it once and later calls do
// nothing, so an operation defers Close right after opening and never
// closes by hand on its error paths; a descriptor handed to the caller or
// to an *os.File leaves through take or file, after which the deferred
// Close does nothing. A nil *fd is a closed one.
type fd struct{ num int }

// newFd takes ownership of the descriptor n.
func newFd(n int) *fd { return &fd{num: n} }

// dirOf is the descriptor of the open directory d, for *at calls; d keeps
// owning it, so the result is never closed.
func dirOf(d *os.File) *fd { return &fd{num: int(d.Fd())} }

// n returns the descriptor number (-1 once closed or given away) for a
// system call; the caller keeps no copy beyond the call.
func (f *fd) n() int {
	if f == nil {
		return -1
	}
	return f.num
}

// Close closes the descriptor if it is still owned; a second Close, or one
// after take or file, returns nil.
func (f *fd) Close() error {
	if f == nil || f.num < 0 {
		return nil
	}
	num := f.num
	f.num = -1
	return unix.Close(num)
}

// take moves the descriptor into a new owner; f no longer owns it.
func (f *fd) take() *fd {
	g := &fd{num: f.num}
	f.num = -1
	return g
}

// file moves the descriptor into an *os.File named name, which closes it.
func (f *fd) file(name string) *os.File {
	num := f.num
	f.num = -1
	return os.NewFile(uintptr(num), name)
}

// fstat is fstat(2) of the descriptor.
func (f *fd) fstat() (unix.Stat_t, error) {
	var st unix.Stat_t
	err := unix.Fstat(f.n(), &st)
	return st, err
}

// statAt is fstatat(2) of name below the directory f, not following a final
// symlink.
func (f *fd) statAt(name string) (unix.Stat_t, error) {
	var st unix.Stat_t
	err := fstatat(f.n(), name, &st)
	return st, err
}

// openAt opens name relative to the directory f (openat(2), O_CLOEXEC,
// retried on EINTR).
func (f *fd) openAt(name string, flags int, mode uint32) (*fd, error) {
	num, err := openatRetry(f.n(), name, flags, mode)
	if err != nil {
		return nil, err
	}
	return newFd(num), nil
}

// openBeneath opens the cleaned relative path rel below the directory f
// without following a symlink or leaving f (see openBeneath).
func (f *fd) openBeneath(rel string, flags int) (*fd, error) {
	num, err := openBeneath(f.n(), rel, flags, 0)
	if err != nil {
		return nil, err
	}
	return newFd(num), nil
}

// chown changes the owner and group of the file f refers to (-1 leaves
// either alone). f may be an O_PATH descriptor: where the kernel refuses
// fchownat(AT_EMPTY_PATH) on one (gVisor answers EBADF), the same inode is
// reopened through /proc/self/fd, which names f itself and resolves no path,
// and changed with fchown.
func (f *fd) chown(uid, gid int) error {
	err := unix.Fchownat(f.n(), "", uid, gid, unix.AT_EMPTY_PATH)
	if !errors.Is(err, unix.EBADF) {
		return err
	}
	n, oerr := unix.Open("/proc/self/fd/"+strconv.Itoa(f.n()), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if oerr != nil {
		return err
	}
	again := &fd{num: n}
	defer again.Close()
	return unix.Fchown(again.n(), uid, gid)
}
