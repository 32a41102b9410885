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

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// ErrUnsafeMember is wrapped when a restore refuses an archive because of
// one member; the error names it and nothing was written.
var ErrUnsafeMember = errors.New("unsafe archive member")

// checker validates the members of one archive in order: names are
// workspace-relative without "..", links stay inside the root, no member
// passes through a symlink member, hard links name an earlier regular
// file, only directories, regular files, symlinks and hard links are
// accepted (no device, FIFO, sparse or other special file), and the
// members stay within the limits (files and directories and links
// counted in max_files, regular files' sizes in max_bytes). Once every
// member is known, finish resolves each symlink through the archive's
// own links (see escapingLinks).
type checker struct {
	symlinks map[string]string // workspace-relative path → link target
	names    map[string]string // workspace-relative path → member name
	regular  map[string]bool
	limits   sandbox.OutputLimits
	op       string
	files    int64
	bytes    int64
}

func newChecker(op string, l sandbox.OutputLimits) *checker {
	return &checker{symlinks: map[string]string{}, names: map[string]string{}, regular: map[string]bool{},
		limits: l.WithDefaults(), op: op}
}

// MemberError is an ErrUnsafeMember refusal of one member.
type MemberError struct {
	// Name is the member's name in the archive; Reason says why it is
	// refused.
	Name, Reason string
}

func (e *MemberError) Error() string {
	return fmt.Sprintf("%s %q: %s", ErrUnsafeMember, e.Name, e.Reason)
}

// Is makes a MemberError match ErrUnsafeMember.
func (e *MemberError) Is(target error) bool { return target == ErrUnsafeMember }

func refuse(name, why string) error { return &MemberError{Name: name, Reason: why} }

// sparse reports whether hdr is a sparse file in any GNU format: the old
// GNU 'S' type, or PAX records GNU.sparse.* (formats 0.0, 0.1 and 1.0).
// archive/tar expands those to their full size when read.
func sparse(hdr *tar.Header) bool {
	if hdr.Typeflag == tar.TypeGNUSparse {
		return true
	}
	for k := range hdr.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return true
		}
	}
	return false
}

// count adds a member (and size bytes of regular content) to what the
// archive writes, refusing it past the limits.
func (c *checker) count(rel string, size int64) error {
	if rel == "." {
		return nil
	}
	if c.files+1 > c.limits.MaxFiles {
		return &sandbox.LimitError{Op: c.op, Limit: "max_files", Value: c.limits.MaxFiles, Path: rel}
	}
	if size > c.limits.MaxBytes-c.bytes {
		return &sandbox.LimitError{Op: c.op, Limit: "max_bytes", Value: c.limits.MaxBytes, Path: rel}
	}
	c.files++
	c.bytes += size
	return nil
}

// finish resolves every symlink member through the archive's links and
// refuses the first (in path order) whose resolution leaves the root.
func (c *checker) finish() error {
	bad := escapingLinks(c.symlinks)
	if len(bad) == 0 {
		return nil
	}
	rel := firstKey(bad)
	return refuse(c.names[rel], bad[rel])
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
	if sparse(hdr) {
		return "", refuse(name, "sparse file member (GNU sparse format): sparse members are refused, they would be "+
			"written at their full expanded size")
	}
	rel := memberRel(name, "")
	for dir := path.Dir(rel); dir != "." && dir != "/"; dir = path.Dir(dir) {
		if _, ok := c.symlinks[dir]; ok {
			return "", refuse(name, "member lies below the symlink member "+dir)
		}
	}
	if _, ok := c.symlinks[rel]; ok {
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
		if err := c.count(rel, hdr.Size); err != nil {
			return "", err
		}
		c.regular[rel] = true
	case tar.TypeSymlink:
		if err := c.checkLink(name, rel, hdr.Linkname, true); err != nil {
			return "", err
		}
		if err := c.count(rel, 0); err != nil {
			return "", err
		}
		c.symlinks[rel], c.names[rel] = hdr.Linkname, name
	case tar.TypeLink:
		if err := c.checkLink(name, rel, hdr.Linkname, false); err != nil {
			return "", err
		}
		if err := c.count(rel, 0); err != nil {
			return "", err
		}
		c.regular[rel] = true
	default:
		return "", refuse(name, fmt.Sprintf("member type %q is not a directory, regular file or link (device files, FIFOs and other special files are refused)", hdr.Typeflag))
	}
	if hdr.Typeflag == tar.TypeDir {
		if err := c.count(rel, 0); err != nil {
			return "", err
		}
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
			if _, ok := c.symlinks[dir]; ok {
				return refuse(name, fmt.Sprintf("hard link target %q lies below a symlink", target))
			}
		}
	}
	return nil
}

// Validate reads a whole archive and checks every member, that each
// regular file holds exactly the bytes its header declares, that the
// restore stays within l (zero bounds mean the defaults; a
// *sandbox.LimitError says which) and, once every member is known, that no
// symlink resolves outside the root through the archive's links. It
// returns the archive's summary (Fingerprint unset). Nothing is written
// anywhere.
func Validate(r io.Reader, l sandbox.OutputLimits) (Summary, error) { return scan(r, true, "", l) }

// Summarize reads a whole archive a persist wrote and returns its summary
// and fingerprint (with manifestDigest); members are not checked for a
// restore, only read.
func Summarize(r io.Reader, manifestDigest string) (Summary, error) {
	return scan(r, false, manifestDigest, sandbox.OutputLimits{})
}

func scan(r io.Reader, validate bool, manifestDigest string, l sandbox.OutputLimits) (Summary, error) {
	hw := &countingHash{h: sha256.New()}
	tr := tar.NewReader(io.TeeReader(r, hw))
	c := newChecker("restore", l)
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
	if validate {
		if err := c.finish(); err != nil {
			return Summary{}, err
		}
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
