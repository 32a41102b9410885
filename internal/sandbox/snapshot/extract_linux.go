//go:build linux

package snapshot

import (
	"archive/tar"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// Extract writes the archive on r below root, re-checking every member as
// Validate does (callers validate the whole archive first, so a bad member
// is refused before anything is written). Every path is opened component
// by component with O_NOFOLLOW, files are written to a temporary name and
// renamed into place, and directory modes are applied last, deepest first.
// With owners (and running as root), members get their archived uid and
// gid: inside a container, whose accounts the workspace declares; on the
// host, an archive must not hand files to the host's users, so a local
// restore passes false. It writes at most what l allows (zero bounds mean
// the defaults); the links are resolved through each other once every
// member is written, so callers that must write nothing on a bad archive
// validate it first.
func Extract(ctx context.Context, root string, r io.Reader, owners bool, l sandbox.OutputLimits) (Summary, error) {
	rootFd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return Summary{}, &os.PathError{Op: "restore", Path: root, Err: err}
	}
	defer unix.Close(rootFd)
	x := &extractor{root: rootFd, c: newChecker("restore", l), dirs: map[string]*tar.Header{}, files: map[string]string{}, owner: owners && os.Geteuid() == 0}
	hw := &countingHash{h: sha256.New()}
	tr := tar.NewReader(io.TeeReader(r, hw))
	for {
		if err := ctx.Err(); err != nil {
			return Summary{}, err
		}
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Summary{}, fmt.Errorf("reading the archive: %w", err)
		}
		rel, err := x.c.check(hdr)
		if err != nil {
			return Summary{}, err
		}
		if err := x.member(rel, hdr, tr); err != nil {
			return Summary{}, fmt.Errorf("restore %s: %w", hdr.Name, err)
		}
	}
	if err := x.c.finish(); err != nil {
		return Summary{}, err
	}
	if err := x.finishDirs(); err != nil {
		return Summary{}, err
	}
	if _, err := io.Copy(io.Discard, io.TeeReader(r, hw)); err != nil {
		return Summary{}, err
	}
	return Summary{SHA256: hex.EncodeToString(hw.h.Sum(nil)), Size: hw.n, FileCount: len(x.files), Files: x.files}, nil
}

type extractor struct {
	root  int
	c     *checker
	dirs  map[string]*tar.Header
	files map[string]string
	owner bool
}

// parent opens the directory holding rel, creating missing directories
// (mode 0700 until finishDirs) without following any symlink.
func (x *extractor) parent(rel string) (int, string, error) {
	dir, base := path.Split(rel)
	fd, err := unix.Dup(x.root)
	if err != nil {
		return -1, "", err
	}
	for _, seg := range strings.Split(strings.Trim(dir, "/"), "/") {
		if seg == "" {
			continue
		}
		if err := unix.Mkdirat(fd, seg, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
			unix.Close(fd)
			return -1, "", err
		}
		next, err := unix.Openat(fd, seg, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			return -1, "", fmt.Errorf("opening %s without following symlinks: %w", seg, err)
		}
		fd = next
	}
	return fd, base, nil
}

func (x *extractor) member(rel string, hdr *tar.Header, r io.Reader) error {
	if rel == "." {
		x.dirs["."] = hdr
		return nil
	}
	pfd, base, err := x.parent(rel)
	if err != nil {
		return err
	}
	defer unix.Close(pfd)
	switch hdr.Typeflag {
	case tar.TypeDir:
		if err := unix.Mkdirat(pfd, base, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
			return err
		}
		x.dirs[rel] = hdr
		return nil
	case tar.TypeSymlink:
		tmp := tempName(base)
		if err := unix.Symlinkat(hdr.Linkname, pfd, tmp); err != nil {
			return err
		}
		return x.place(pfd, tmp, base, hdr)
	case tar.TypeLink:
		tpfd, tbase, err := x.parent(path.Clean(strings.TrimPrefix(hdr.Linkname, "./")))
		if err != nil {
			return err
		}
		defer unix.Close(tpfd)
		tmp := tempName(base)
		if err := unix.Linkat(tpfd, tbase, pfd, tmp, 0); err != nil {
			return err
		}
		x.files[rel] = x.files[path.Clean(strings.TrimPrefix(hdr.Linkname, "./"))]
		return unix.Renameat(pfd, tmp, pfd, base)
	}
	return x.file(pfd, base, rel, hdr, r)
}

func (x *extractor) file(pfd int, base, rel string, hdr *tar.Header, r io.Reader) error {
	tmp := tempName(base)
	fd, err := unix.Openat(pfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), tmp)
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), r)
	if err == nil && n != hdr.Size {
		err = fmt.Errorf("content size %d differs from the declared %d", n, hdr.Size)
	}
	if err == nil {
		err = f.Chmod(os.FileMode(hdr.Mode & 0o777))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = unix.Unlinkat(pfd, tmp, 0)
		return err
	}
	x.files[rel] = hex.EncodeToString(h.Sum(nil))
	return x.place(pfd, tmp, base, hdr)
}

// place sets the owner of tmp (when running as root) and renames it over
// base.
func (x *extractor) place(pfd int, tmp, base string, hdr *tar.Header) error {
	if x.owner {
		if err := unix.Fchownat(pfd, tmp, hdr.Uid, hdr.Gid, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			_ = unix.Unlinkat(pfd, tmp, 0)
			return err
		}
	}
	if err := unix.Renameat(pfd, tmp, pfd, base); err != nil {
		_ = unix.Unlinkat(pfd, tmp, 0)
		return err
	}
	return nil
}

// finishDirs applies the directory members' modes (and owners), deepest
// first, so a read-only directory does not block the files below it.
func (x *extractor) finishDirs() error {
	rels := make([]string, 0, len(x.dirs))
	for rel := range x.dirs {
		rels = append(rels, rel)
	}
	depth := func(rel string) int {
		if rel == "." {
			return -1
		}
		return strings.Count(rel, "/")
	}
	sort.Slice(rels, func(i, j int) bool { return depth(rels[i]) > depth(rels[j]) })
	for _, rel := range rels {
		hdr := x.dirs[rel]
		fd := x.root
		if rel != "." {
			pfd, base, err := x.parent(rel)
			if err != nil {
				return err
			}
			fd, err = unix.Openat(pfd, base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			unix.Close(pfd)
			if err != nil {
				return fmt.Errorf("restore %s: %w", rel, err)
			}
		}
		err := unix.Fchmod(fd, uint32(hdr.Mode&0o1777))
		if err == nil && x.owner {
			err = unix.Fchown(fd, hdr.Uid, hdr.Gid)
		}
		if rel != "." {
			unix.Close(fd)
		}
		if err != nil {
			return fmt.Errorf("restore %s: %w", rel, err)
		}
	}
	return nil
}

// tempName is a fresh name beside base for a member being written.
func tempName(string) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return ".sandbox-restore-" + hex.EncodeToString(b)
}
