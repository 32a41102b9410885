//go:build linux

package snapshot

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"golang.org/x/sys/unix"
)

// Persist writes the tar of the workspace root to w: one "."-rooted member
// per directory, regular file and symlink below root, leaving out every
// skip path and everything mounted below the root (a directory on another
// device is a mount point and is skipped whether or not it is listed).
// The walk opens every component with O_NOFOLLOW relative to its parent,
// so no symlink is followed; files are streamed, never held in memory.
// Sockets, FIFOs and device files are left out. It returns what was
// written; its Fingerprint includes manifestDigest.
func Persist(ctx context.Context, root string, skip []string, manifestDigest string, w io.Writer) (Summary, error) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return Summary{}, &os.PathError{Op: "persist", Path: root, Err: err}
	}
	p := &persister{ctx: ctx, skip: map[string]bool{}, files: map[string]string{}}
	for _, s := range skip {
		p.skip[memberRel(s, "")] = true
	}
	hw := &countingHash{h: sha256.New()}
	p.tw = tar.NewWriter(io.MultiWriter(w, hw))
	d := os.NewFile(uintptr(fd), root)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		d.Close()
		return Summary{}, err
	}
	p.dev = st.Dev
	if err := p.header(".", &st, ""); err != nil {
		d.Close()
		return Summary{}, err
	}
	if err := p.walk(d, ""); err != nil {
		return Summary{}, err
	}
	if err := p.tw.Close(); err != nil {
		return Summary{}, err
	}
	fp, err := Fingerprint(hw.h, manifestDigest)
	if err != nil {
		return Summary{}, err
	}
	return Summary{SHA256: hex.EncodeToString(hw.h.Sum(nil)), Size: hw.n, FileCount: len(p.files), Files: p.files,
		Fingerprint: fp}, nil
}

type persister struct {
	ctx   context.Context
	tw    *tar.Writer
	skip  map[string]bool
	dev   uint64
	files map[string]string
}

// walk writes the members below the directory d (workspace-relative prefix
// prefix, "" for the root) and closes d.
func (p *persister) walk(d *os.File, prefix string) error {
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return fmt.Errorf("persist %s: %w", prefix+".", err)
	}
	sort.Strings(names)
	dfd := int(d.Fd())
	for _, name := range names {
		if err := p.ctx.Err(); err != nil {
			return err
		}
		rel := prefix + name
		if p.skipped(rel) {
			continue
		}
		var st unix.Stat_t
		if err := unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTCONN) {
				continue // removed while walking, or a FUSE mount whose helper died
			}
			return &os.PathError{Op: "persist", Path: rel, Err: err}
		}
		if err := p.member(dfd, name, rel, &st); err != nil {
			return err
		}
	}
	return nil
}

func (p *persister) skipped(rel string) bool {
	for s := range p.skip {
		if within(rel, s) {
			return true
		}
	}
	return false
}

func (p *persister) member(dfd int, name, rel string, st *unix.Stat_t) error {
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		if st.Dev != p.dev {
			return nil // a mount point: its files are not the workspace's
		}
		fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return &os.PathError{Op: "persist", Path: rel, Err: err}
		}
		if err := p.header(rel, st, ""); err != nil {
			unix.Close(fd)
			return err
		}
		return p.walk(os.NewFile(uintptr(fd), rel), rel+"/")
	case unix.S_IFLNK:
		buf := make([]byte, unix.PathMax)
		n, err := unix.Readlinkat(dfd, name, buf)
		if err != nil {
			return &os.PathError{Op: "persist", Path: rel, Err: err}
		}
		return p.header(rel, st, string(buf[:n]))
	case unix.S_IFREG:
		return p.file(dfd, name, rel, st)
	}
	return nil
}

// file streams one regular file, checking that what was opened is what was
// listed and that it holds exactly the bytes its header declares.
func (p *persister) file(dfd int, name, rel string, st *unix.Stat_t) error {
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return &os.PathError{Op: "persist", Path: rel, Err: err}
	}
	f := os.NewFile(uintptr(fd), rel)
	defer f.Close()
	var got unix.Stat_t
	if err := unix.Fstat(fd, &got); err != nil || got.Ino != st.Ino || got.Dev != st.Dev {
		return fmt.Errorf("persist %s: the file was replaced while the workspace was being persisted", rel)
	}
	if err := p.header(rel, &got, ""); err != nil {
		return err
	}
	h := sha256.New()
	n, err := io.Copy(p.tw, io.TeeReader(io.LimitReader(f, got.Size), h))
	if err != nil {
		return fmt.Errorf("persist %s: %w", rel, err)
	}
	if n != got.Size {
		return fmt.Errorf("persist %s: the file shrank while the workspace was being persisted", rel)
	}
	p.files[rel] = hex.EncodeToString(h.Sum(nil))
	return nil
}

func (p *persister) header(rel string, st *unix.Stat_t, link string) error {
	hdr := &tar.Header{
		Name: "./" + rel, Mode: int64(st.Mode & 0o7777), Uid: int(st.Uid), Gid: int(st.Gid),
		ModTime: time.Unix(st.Mtim.Sec, 0), Format: tar.FormatPAX,
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		hdr.Typeflag, hdr.Name = tar.TypeDir, hdr.Name+"/"
		if rel == "." {
			hdr.Name = "./"
		}
	case unix.S_IFLNK:
		hdr.Typeflag, hdr.Linkname = tar.TypeSymlink, link
	default:
		hdr.Typeflag, hdr.Size = tar.TypeReg, st.Size
	}
	if err := p.tw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("persist %s: %w", rel, err)
	}
	return nil
}
