package snapshot

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// ErrUnsafeMember is wrapped when a restore refuses an archive because of
// one member; the error names it and nothing was written.
var ErrUnsafeMember = errors.New("unsafe archive member")

// checker validates the members of one archive in order: names are
// workspace-relative without "..", links stay inside the root, no member
// passes through a symlink member, hard links name an earlier regular
// file, and only directories, regular files, symlinks and hard links are
// accepted (no device, FIFO or other special file).
type checker struct {
	symlinks map[string]bool
	regular  map[string]bool
}

func newChecker() *checker {
	return &checker{symlinks: map[string]bool{}, regular: map[string]bool{}}
}

func refuse(name, why string) error {
	return fmt.Errorf("%w %q: %s; the archive was refused and nothing was written", ErrUnsafeMember, name, why)
}

// check validates hdr and returns its clean workspace-relative path ("."
// for the root).
func (c *checker) check(hdr *tar.Header) (string, error) {
	name := hdr.Name
	if strings.HasPrefix(name, "/") {
		return "", refuse(name, "absolute member name")
	}
	if strings.Contains(name, "\\") || strings.ContainsRune(name, 0) {
		return "", refuse(name, "member name holds a backslash or NUL")
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == ".." {
			return "", refuse(name, "member name holds a .. segment")
		}
	}
	rel := memberRel(name, "")
	for dir := path.Dir(rel); dir != "." && dir != "/"; dir = path.Dir(dir) {
		if c.symlinks[dir] {
			return "", refuse(name, "member lies below the symlink member "+dir)
		}
	}
	if c.symlinks[rel] {
		return "", refuse(name, "member replaces the symlink member of the same name")
	}
	switch hdr.Typeflag {
	case tar.TypeDir:
		if hdr.Size != 0 {
			return "", refuse(name, "directory member declares a size")
		}
	case tar.TypeReg, tar.TypeRegA: //nolint:staticcheck // TypeRegA is how old archives mark regular files
		if rel == "." {
			return "", refuse(name, "the root must be a directory")
		}
		if hdr.Size < 0 {
			return "", refuse(name, "negative size")
		}
		c.regular[rel] = true
	case tar.TypeSymlink:
		if err := c.checkLink(name, rel, hdr.Linkname, true); err != nil {
			return "", err
		}
		c.symlinks[rel] = true
	case tar.TypeLink:
		if err := c.checkLink(name, rel, hdr.Linkname, false); err != nil {
			return "", err
		}
		c.regular[rel] = true
	default:
		return "", refuse(name, fmt.Sprintf("member type %q is not a directory, regular file or link (device files, FIFOs and other special files are refused)", hdr.Typeflag))
	}
	return rel, nil
}

// checkLink refuses a symlink whose target, resolved from the member's
// directory, would leave the root, and a hard link that does not name an
// earlier regular-file member.
func (c *checker) checkLink(name, rel, target string, symbolic bool) error {
	if rel == "." {
		return refuse(name, "the root must be a directory")
	}
	if target == "" || strings.HasPrefix(target, "/") {
		return refuse(name, fmt.Sprintf("link target %q is absolute or empty, so it leaves the workspace root", target))
	}
	joined := target
	if symbolic {
		joined = path.Join(path.Dir(rel), target)
	}
	joined = path.Clean(strings.TrimPrefix(joined, "./"))
	if joined == ".." || strings.HasPrefix(joined, "../") {
		return refuse(name, fmt.Sprintf("link target %q leaves the workspace root", target))
	}
	if !symbolic {
		if !c.regular[joined] {
			return refuse(name, fmt.Sprintf("hard link target %q is not an earlier regular file of the archive", target))
		}
		for dir := joined; dir != "."; dir = path.Dir(dir) {
			if c.symlinks[dir] {
				return refuse(name, fmt.Sprintf("hard link target %q lies below a symlink", target))
			}
		}
	}
	return nil
}

// Validate reads a whole archive and checks every member, and that each
// regular file holds exactly the bytes its header declares. It returns the
// archive's summary (Fingerprint unset). Nothing is written anywhere.
func Validate(r io.Reader) (Summary, error) { return scan(r, true, "") }

// Summarize reads a whole archive a persist wrote and returns its summary
// and fingerprint (with manifestDigest); members are not checked for a
// restore, only read.
func Summarize(r io.Reader, manifestDigest string) (Summary, error) {
	return scan(r, false, manifestDigest)
}

func scan(r io.Reader, validate bool, manifestDigest string) (Summary, error) {
	hw := &countingHash{h: sha256.New()}
	tr := tar.NewReader(io.TeeReader(r, hw))
	c := newChecker()
	files := map[string]string{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Summary{}, fmt.Errorf("reading the archive: %w", err)
		}
		rel := memberRel(hdr.Name, "")
		if validate {
			if rel, err = c.check(hdr); err != nil {
				return Summary{}, err
			}
		}
		if hdr.Typeflag != tar.TypeReg && hdr.Typeflag != tar.TypeRegA { //nolint:staticcheck // see check
			continue
		}
		h := sha256.New()
		n, err := io.Copy(h, tr)
		if err != nil {
			return Summary{}, refuse(hdr.Name, "content shorter than its declared size: "+err.Error())
		}
		if n != hdr.Size {
			return Summary{}, refuse(hdr.Name, "content size differs from its declared size")
		}
		files[rel] = hex.EncodeToString(h.Sum(nil))
	}
	if _, err := io.Copy(io.Discard, io.TeeReader(r, hw)); err != nil {
		return Summary{}, err
	}
	sum := Summary{Size: hw.n, FileCount: len(files), Files: files}
	if !validate {
		fp, err := Fingerprint(hw.h, manifestDigest)
		if err != nil {
			return Summary{}, err
		}
		sum.Fingerprint = fp
	}
	sum.SHA256 = hex.EncodeToString(hw.h.Sum(nil))
	return sum, nil
}
