package workspace

import (
	"archive/tar"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/redact"
)

// exporter writes the files of one export below root, within its limits.
// Everything read from the workspace is untrusted: member names must be
// the relative paths asked for, each once; members must be regular files
// whose content matches what their headers declare; data bytes count
// against the byte bound as they arrive.
type exporter struct {
	root   *os.Root
	res    *ExportResult
	limits sandbox.OutputLimits
	budget int64  // data bytes still allowed
	at     string // the file being written, for errors
	// secrets refuses a file holding a write-only value (nil: allowed).
	secrets *redact.SecretScanner
}

// scanningHash is a hash that also feeds every byte to a secret scanner;
// a hit is kept for the file's end.
type scanningHash struct {
	hash.Hash
	s   *redact.SecretScanner
	err error
}

func (h *scanningHash) Write(p []byte) (int, error) {
	if h.err == nil {
		_, h.err = h.s.Write(p)
	}
	return h.Hash.Write(p)
}

// errExportStopped closes the archive stream when the reader gives up.
var errExportStopped = errors.New("export stopped")

// archive streams tree from a as one archive.
func (x *exporter) archive(ctx context.Context, a backend.ExportArchiver, tree []backend.TreeFile) error {
	want := make(map[string]backend.TreeFile, len(tree))
	rels := make([]string, len(tree))
	for i, f := range tree {
		want[f.Rel], rels[i] = f, f.Rel
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	sent := make(chan error, 1)
	go func() {
		err := a.ExportArchive(ctx, rels, pw)
		_ = pw.CloseWithError(err)
		sent <- err
	}()
	if err := x.readArchive(ctx, pr, want); err != nil {
		_ = pr.CloseWithError(errExportStopped)
		return err
	}
	// The archive ended: the sender's own result (a helper's exit status)
	// still decides.
	select {
	case err := <-sent:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (x *exporter) readArchive(ctx context.Context, r io.Reader, want map[string]backend.TreeFile) error {
	tr := tar.NewReader(r)
	seen := make(map[string]bool, len(want))
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		x.at = ""
		f, ok := want[hdr.Name]
		switch {
		case !validMemberName(hdr.Name):
			return fmt.Errorf("the archive holds a member named %q, not a workspace-relative path", hdr.Name)
		case !ok:
			return fmt.Errorf("the archive holds %q, which was not asked for", hdr.Name)
		case seen[hdr.Name]:
			return fmt.Errorf("the archive holds %q twice", hdr.Name)
		case hdr.Typeflag != tar.TypeReg:
			return fmt.Errorf("the archive holds %q as type %q, not a regular file", hdr.Name, hdr.Typeflag)
		}
		seen[hdr.Name], x.at = true, hdr.Name
		size, segs, err := backend.ExportSegments(hdr.PAXRecords, hdr.Size)
		if err != nil {
			return err
		}
		if err := x.charge(hdr.Name, hdr.Size); err != nil {
			return err
		}
		if err := x.place(ctx, f, size, segs, tr); err != nil {
			return err
		}
	}
	x.at = ""
	for rel := range want {
		if !seen[rel] {
			return fmt.Errorf("the archive ended without %s", rel)
		}
	}
	return nil
}

// each reads the files of tree one by one, for a backend without archives:
// holes cannot be told apart, every byte counts.
func (x *exporter) each(ctx context.Context, r backend.FileReader, tree []backend.TreeFile) error {
	for _, f := range tree {
		x.at = f.Rel
		if err := x.charge(f.Rel, f.Size); err != nil {
			return err
		}
		err := x.write(ctx, f, func(out *os.File, h hash.Hash) error {
			_, err := r.ReadFile(ctx, f.Rel, io.MultiWriter(out, h), x.budget+f.Size)
			if errors.Is(err, backend.ErrTooLarge) {
				return &sandbox.LimitError{Op: "export", Limit: "max_bytes", Value: x.limits.MaxBytes, Path: f.Rel}
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// charge takes n data bytes of rel from the byte budget.
func (x *exporter) charge(rel string, n int64) error {
	if n > x.budget {
		return &sandbox.LimitError{Op: "export", Limit: "max_bytes", Value: x.limits.MaxBytes, Path: rel}
	}
	x.budget -= n
	return nil
}

// place writes f's content from r: the data segments at their offsets,
// the rest of its size left as holes.
func (x *exporter) place(ctx context.Context, f backend.TreeFile, size int64, segs []backend.Segment, r io.Reader) error {
	return x.write(ctx, f, func(out *os.File, h hash.Hash) error {
		var pos int64
		for _, s := range segs {
			if err := hashZeros(ctx, h, s.Off-pos); err != nil {
				return err
			}
			n, err := io.CopyN(io.MultiWriter(io.NewOffsetWriter(out, s.Off), h), r, s.Len)
			if err != nil {
				return fmt.Errorf("the archive holds %d of the %d bytes declared at offset %d: %w", n, s.Len, s.Off, err)
			}
			pos = s.Off + s.Len
		}
		if err := hashZeros(ctx, h, size-pos); err != nil {
			return err
		}
		return out.Truncate(size)
	})
}

// write makes f below the root: its parents, then a temporary file filled
// by fill, given f's permission bits, synced and linked into place only if
// its path is still free. The temporary file never outlives the call.
func (x *exporter) write(ctx context.Context, f backend.TreeFile, fill func(*os.File, hash.Hash) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	dirs, err := mkdirsInRoot(x.root, path.Dir(f.Rel))
	x.res.Dirs = append(x.res.Dirs, dirs...)
	if err != nil {
		return err
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	tmp := path.Join(path.Dir(f.Rel), ".sandbox-export-"+hex.EncodeToString(b))
	out, err := x.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() { _ = x.root.Remove(tmp) }()
	x.secrets.Start(f.Rel)
	h := &scanningHash{Hash: sha256.New(), s: x.secrets}
	err = fill(out, h)
	if err == nil {
		err = h.err // the temporary file holding it is removed
	}
	if err == nil {
		err = out.Chmod(f.Perm & 0o777)
	}
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = placeNoReplace(x.root, tmp, f.Rel)
	}
	if err != nil {
		return err
	}
	x.res.Files[f.Rel] = hex.EncodeToString(h.Sum(nil))
	return nil
}

var zeros = make([]byte, 1<<20)

// hashZeros feeds n zero bytes (a hole) to h.
func hashZeros(ctx context.Context, h hash.Hash, n int64) error {
	for n > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := min(n, int64(len(zeros)))
		h.Write(zeros[:k])
		n -= k
	}
	return nil
}

// validMemberName reports whether name is a clean workspace-relative path
// without "..".
func validMemberName(name string) bool {
	if name == "" || name == "." || path.IsAbs(name) || path.Clean(name) != name || strings.ContainsRune(name, '\\') {
		return false
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == ".." {
			return false
		}
	}
	return fs.ValidPath(name)
}
