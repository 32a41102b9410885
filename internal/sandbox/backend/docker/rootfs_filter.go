package docker

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/redact"
)

// rootfsFilter says what of a container's exported filesystem goes into
// an image.
type rootfsFilter struct {
	// Drop are absolute paths left out with everything below them.
	Drop []string
	// MountPoints are absolute paths whose contents are left out; the point
	// itself stays as an empty directory (or is left out if not one).
	MountPoints []string
	Limits      sandbox.OutputLimits
	// WriteOnly are the values no regular file may hold.
	WriteOnly []redact.WriteOnlyValue
}

// rootfsStats is what the filter wrote.
type rootfsStats struct {
	Members int64
	Bytes   int64 // data bytes of regular files
	Files   int   // regular files
	Dropped int   // members left out
}

// maxMemberName bounds a member's name and link target.
const maxMemberName = 4096

// under reports whether p is base or below it.
func under(p, base string) bool {
	return p == base || base == "/" || strings.HasPrefix(p, base+"/")
}

// memberPath is a member name of an exported filesystem as a clean
// absolute path; a name with a ".." segment, a NUL or too long is refused.
func memberPath(name string) (string, error) {
	if len(name) > maxMemberName || strings.ContainsRune(name, 0) {
		return "", fmt.Errorf("the exported filesystem holds a member name that is too long or holds a NUL")
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == ".." {
			return "", fmt.Errorf("the exported filesystem holds a member %q with a .. segment", name)
		}
	}
	return path.Clean("/" + name), nil
}

// filter copies the tar stream r (docker export: untrusted, it is what the
// workspace's processes left) to w: members are bounded in number and
// data bytes, names validated, the Drop paths and mount point contents
// left out (hard links to a left-out file with them), devices and FIFOs
// left out (the runtime creates /dev), and a regular file holding a
// write-only value fails with a *redact.SecretFileError before its data
// is written.
func (f rootfsFilter) filter(ctx context.Context, r io.Reader, w io.Writer) (rootfsStats, error) {
	lim := f.Limits.WithDefaults()
	var st rootfsStats
	tr, tw := tar.NewReader(r), tar.NewWriter(w)
	written := map[string]bool{}
	secrets := redact.NewSecretScanner("snapshot", f.WriteOnly)
	for {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return st, fmt.Errorf("reading the exported filesystem: %w", err)
		}
		p, err := memberPath(hdr.Name)
		if err != nil {
			return st, err
		}
		if p == "/" {
			continue
		}
		if !f.keep(p, hdr) {
			st.Dropped++
			continue
		}
		out := &tar.Header{Typeflag: hdr.Typeflag, Name: strings.TrimPrefix(p, "/"), Mode: hdr.Mode, Uid: hdr.Uid,
			Gid: hdr.Gid, Uname: hdr.Uname, Gname: hdr.Gname, ModTime: hdr.ModTime, Format: tar.FormatPAX}
		for k, v := range hdr.PAXRecords {
			if strings.HasPrefix(k, "SCHILY.xattr.") { // file capabilities, ACLs
				if out.PAXRecords == nil {
					out.PAXRecords = map[string]string{}
				}
				out.PAXRecords[k] = v
			}
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			out.Name += "/"
		case tar.TypeReg, tar.TypeRegA: //nolint:staticcheck // old archives
			out.Typeflag, out.Size = tar.TypeReg, hdr.Size
		case tar.TypeSymlink:
			if len(hdr.Linkname) > maxMemberName || strings.ContainsRune(hdr.Linkname, 0) {
				return st, fmt.Errorf("the exported filesystem holds a symlink %s with an invalid target", p)
			}
			out.Linkname = hdr.Linkname // resolved inside the image's containers only
		case tar.TypeLink:
			target, err := memberPath(hdr.Linkname)
			if err != nil {
				return st, err
			}
			if !written[target] { // its file was left out: so is every other name of it
				st.Dropped++
				continue
			}
			out.Linkname = strings.TrimPrefix(target, "/")
		default:
			st.Dropped++
			continue
		}
		if st.Members++; st.Members > lim.MaxFiles {
			return st, &sandbox.LimitError{Op: "snapshot", Limit: "max_files", Value: lim.MaxFiles, Path: p}
		}
		if out.Size > lim.MaxBytes-st.Bytes {
			return st, &sandbox.LimitError{Op: "snapshot", Limit: "max_bytes", Value: lim.MaxBytes, Path: p}
		}
		if err := tw.WriteHeader(out); err != nil {
			return st, fmt.Errorf("image member %s: %w", p, err)
		}
		if out.Typeflag == tar.TypeReg {
			secrets.Start(p)
			n, err := io.Copy(tw, io.TeeReader(io.LimitReader(tr, out.Size), secrets))
			var secret *redact.SecretFileError
			switch {
			case errors.As(err, &secret):
				return st, secret
			case err == nil && n != out.Size:
				err = fmt.Errorf("content size %d differs from the declared %d", n, out.Size)
			}
			if err != nil {
				return st, fmt.Errorf("image member %s: %w", p, err)
			}
			st.Bytes, st.Files = st.Bytes+n, st.Files+1
			written[p] = true
		}
	}
	if err := tw.Close(); err != nil {
		return st, err
	}
	return st, nil
}

// keep reports whether member p goes into the image.
func (f rootfsFilter) keep(p string, hdr *tar.Header) bool {
	for _, d := range f.Drop {
		if under(p, d) {
			return false
		}
	}
	for _, m := range f.MountPoints {
		if p == m {
			return hdr.Typeflag == tar.TypeDir
		}
		if under(p, m) {
			return false
		}
	}
	return true
}
