//go:build linux

package snapshot

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"golang.org/x/sys/unix"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// ForkSummary is what a fork copied and how: Reflinked files shared their
// blocks (FICLONE), Ranged ones were copied in the kernel
// (copy_file_range), Streamed ones through the provider.
type ForkSummary struct {
	Files, Dirs, Links          int
	Bytes                       int64
	Reflinked, Ranged, Streamed int
}

// Method names how most files were copied, for the log.
func (s ForkSummary) Method() string {
	switch {
	case s.Files == 0:
		return "none (no files)"
	case s.Reflinked == s.Files:
		return "reflink (FICLONE)"
	case s.Streamed == 0 && s.Reflinked == 0:
		return "copy_file_range"
	case s.Streamed == s.Files:
		return "streamed copy"
	}
	return fmt.Sprintf("mixed (%d reflinked, %d copy_file_range, %d streamed)", s.Reflinked, s.Ranged, s.Streamed)
}

// Fork copies the tree of the workspace root src into the empty root dst
// without an archive: the same members a snapshot of src would hold
// (skip paths and everything mounted below src left out, no symlink
// followed, special files left out), checked by the same rules a restore
// applies (member names, links staying inside the root, limits), files
// cloned where the filesystem can (FICLONE), else copied in the kernel
// (copy_file_range), else streamed. Modes are applied explicitly (the
// umask does not matter); files keep the provider's user. On error dst
// holds part of the tree: the caller removes it.
func Fork(ctx context.Context, src, dst string, exclude, mountPoints []string, l sandbox.OutputLimits) (ForkSummary, error) {
	skip := SkipPaths{Excluded: exclude, Mounts: MountsUnder(src, mountPoints)}
	if err := skip.Check(); err != nil {
		return ForkSummary{}, err
	}
	sfd, err := unix.Open(src, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return ForkSummary{}, &os.PathError{Op: "fork", Path: src, Err: err}
	}
	dfd, err := unix.Open(dst, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Close(sfd)
		return ForkSummary{}, &os.PathError{Op: "fork", Path: dst, Err: err}
	}
	f := &forker{ctx: ctx, skip: map[string]bool{}, c: newChecker("fork", l)}
	for _, s := range skip.All() {
		f.skip[s] = true
	}
	var st unix.Stat_t
	if err := unix.Fstat(sfd, &st); err != nil {
		unix.Close(sfd)
		unix.Close(dfd)
		return ForkSummary{}, err
	}
	f.dev = st.Dev
	err = f.walk(sfd, dfd, "")
	if err == nil {
		err = unix.Fchmodat(unix.AT_FDCWD, dst, st.Mode&0o7777, 0)
	}
	if err == nil {
		err = f.c.finish()
	}
	return f.sum, err
}

type forker struct {
	ctx  context.Context
	skip map[string]bool
	dev  uint64
	c    *checker
	sum  ForkSummary
}

// walk copies the members below the source directory sfd into the
// destination directory dfd and closes both.
func (f *forker) walk(sfd, dfd int, prefix string) error {
	d := os.NewFile(uintptr(sfd), prefix+".")
	defer d.Close()
	defer unix.Close(dfd)
	names, err := d.Readdirnames(-1)
	if err != nil {
		return fmt.Errorf("fork %s: %w", prefix+".", err)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := f.ctx.Err(); err != nil {
			return err
		}
		rel := prefix + name
		if f.skipped(rel) {
			continue
		}
		var st unix.Stat_t
		if err := unix.Fstatat(sfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTCONN) {
				continue
			}
			return &os.PathError{Op: "fork", Path: rel, Err: err}
		}
		if err := f.member(sfd, dfd, name, rel, &st); err != nil {
			return err
		}
	}
	return nil
}

func (f *forker) skipped(rel string) bool {
	for s := range f.skip {
		if within(rel, s) {
			return true
		}
	}
	return false
}

// check passes the member through the restore rules.
func (f *forker) check(rel string, st *unix.Stat_t, typ byte, link string) error {
	hdr := &tar.Header{Name: "./" + rel, Typeflag: typ, Mode: int64(st.Mode & 0o7777), Linkname: link}
	if typ == tar.TypeReg {
		hdr.Size = st.Size
	}
	if typ == tar.TypeDir {
		hdr.Name += "/"
	}
	_, err := f.c.check(hdr)
	return err
}

func (f *forker) member(sfd, dfd int, name, rel string, st *unix.Stat_t) error {
	mode := st.Mode & 0o7777
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		if st.Dev != f.dev {
			return nil // a mount point: its files are not the workspace's
		}
		if err := f.check(rel, st, tar.TypeDir, ""); err != nil {
			return err
		}
		cfd, err := unix.Openat(sfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return &os.PathError{Op: "fork", Path: rel, Err: err}
		}
		if err := unix.Mkdirat(dfd, name, 0o700); err != nil {
			unix.Close(cfd)
			return &os.PathError{Op: "fork", Path: rel, Err: err}
		}
		nfd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			unix.Close(cfd)
			return &os.PathError{Op: "fork", Path: rel, Err: err}
		}
		f.sum.Dirs++
		if err := f.walk(cfd, nfd, rel+"/"); err != nil {
			return err
		}
		// The mode last: a read-only directory is filled first.
		return unix.Fchmodat(dfd, name, mode, 0)
	case unix.S_IFLNK:
		buf := make([]byte, unix.PathMax)
		n, err := unix.Readlinkat(sfd, name, buf)
		if err != nil {
			return &os.PathError{Op: "fork", Path: rel, Err: err}
		}
		if err := f.check(rel, st, tar.TypeSymlink, string(buf[:n])); err != nil {
			return err
		}
		f.sum.Links++
		return unix.Symlinkat(string(buf[:n]), dfd, name)
	case unix.S_IFREG:
		if err := f.check(rel, st, tar.TypeReg, ""); err != nil {
			return err
		}
		return f.file(sfd, dfd, name, rel, st)
	}
	return nil
}

// file copies one regular file: FICLONE, else copy_file_range, else a
// streamed copy; it checks that what was opened is what was listed and
// that exactly its size was copied.
func (f *forker) file(sfd, dfd int, name, rel string, st *unix.Stat_t) error {
	in, err := unix.Openat(sfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return &os.PathError{Op: "fork", Path: rel, Err: err}
	}
	src := os.NewFile(uintptr(in), rel)
	defer src.Close()
	var got unix.Stat_t
	if err := unix.Fstat(in, &got); err != nil || got.Ino != st.Ino || got.Dev != st.Dev {
		return fmt.Errorf("fork %s: the file was replaced while the workspace was being forked", rel)
	}
	out, err := unix.Openat(dfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return &os.PathError{Op: "fork", Path: rel, Err: err}
	}
	dst := os.NewFile(uintptr(out), rel)
	defer dst.Close()
	switch {
	case got.Size > 0 && unix.IoctlFileClone(out, in) == nil:
		f.sum.Reflinked++
	default:
		ranged, err := copyRange(out, in, got.Size)
		if err == nil && !ranged {
			var n int64
			n, err = io.Copy(struct{ io.Writer }{dst}, io.LimitReader(src, got.Size)) // no copy_file_range behind io.Copy's back
			if err == nil && n != got.Size {
				err = errors.New("the file shrank while the workspace was being forked")
			}
			f.sum.Streamed++
		} else if err == nil {
			f.sum.Ranged++
		}
		if err != nil {
			return fmt.Errorf("fork %s: %w", rel, err)
		}
	}
	f.sum.Files++
	f.sum.Bytes += got.Size
	if err := unix.Fchmod(out, got.Mode&0o7777); err != nil {
		return &os.PathError{Op: "fork", Path: rel, Err: err}
	}
	ts := []unix.Timespec{got.Atim, got.Mtim}
	if err := unix.UtimesNanoAt(dfd, name, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return &os.PathError{Op: "fork", Path: rel, Err: err}
	}
	return nil
}

// copyRange copies size bytes with copy_file_range; ranged is false (and
// nothing was copied) when the kernel or filesystems cannot.
func copyRange(out, in int, size int64) (ranged bool, err error) {
	var done int64
	for done < size {
		n, err := unix.CopyFileRange(in, nil, out, nil, int(min(size-done, 1<<30)), 0)
		if err != nil {
			if done == 0 && (errors.Is(err, unix.EXDEV) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) ||
				errors.Is(err, unix.EINVAL)) {
				return false, nil
			}
			return true, err
		}
		if n == 0 {
			return true, errors.New("the file shrank while the workspace was being forked")
		}
		done += int64(n)
	}
	return true, nil
}
