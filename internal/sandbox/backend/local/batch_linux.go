//go:build linux

package local

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

// BatchItem is one file of a WriteBatch: the workspace-relative path, the
// permission bits it gets, the SHA-256 (hex) its content must have ("" to
// skip the check) and the content, read once to EOF.
type BatchItem struct {
	Rel    string
	Perm   fs.FileMode
	SHA256 string
	R      io.Reader
}

// pending is a temporary file of a batch waiting to be renamed into place.
type pending struct {
	dir  int // O_PATH descriptor of the target's directory
	tmp  string
	base string
}

// WriteBatch writes many files with WriteFile's guarantees (resolution
// beneath the root without following symlinks, temporary file beside the
// target, hashed while streamed, explicit fchmod, rename into place) but
// with one syncfs(2) for the whole batch instead of one fsync per file:
// every file is first streamed into its temporary file, then the
// filesystem is synced once, then the temporary files are renamed over
// their targets in order. next returns the items one after the other and
// io.EOF after the last; an item's reader is fully consumed before next is
// called again, so items may share one stream (a tar archive). When next,
// a reader or a checksum fails, or ctx is cancelled, every temporary file is
// removed and no target is touched; the error names the file.
func (b *Backend) WriteBatch(ctx context.Context, next func() (BatchItem, error)) ([]backend.WriteResult, error) {
	root, err := b.openRoot("write")
	if err != nil {
		return nil, err
	}
	defer unix.Close(root)
	dirs := map[string]int{}
	var todo []pending
	renamed := 0
	defer func() {
		for _, p := range todo[renamed:] {
			_ = unix.Unlinkat(p.dir, p.tmp, 0)
		}
		for _, fd := range dirs {
			unix.Close(fd)
		}
	}()
	var results []backend.WriteResult
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		it, err := next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		p, res, err := b.stageOne(ctx, root, dirs, it)
		if err != nil {
			return nil, err
		}
		todo = append(todo, p)
		results = append(results, res)
	}
	if len(todo) == 0 {
		return results, nil
	}
	if err := unix.Syncfs(root); err != nil {
		return nil, fmt.Errorf("write: syncfs: %w", err)
	}
	for _, p := range todo {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := unix.Renameat(p.dir, p.tmp, p.dir, p.base); err != nil {
			return nil, &fs.PathError{Op: "write", Path: p.base, Err: err}
		}
		renamed++
	}
	return results, nil
}

// stageOne streams one item into a temporary file beside its target.
func (b *Backend) stageOne(ctx context.Context, root int, dirs map[string]int, it BatchItem) (pending, backend.WriteResult, error) {
	rel, err := cleanRel("write", it.Rel)
	if err != nil {
		return pending{}, backend.WriteResult{}, err
	}
	if rel == "." {
		return pending{}, backend.WriteResult{}, errors.New("write: the workspace root is a directory, not a file")
	}
	dir, base := path.Split(rel)
	pfd, ok := dirs[dir]
	if !ok {
		if pfd, err = mkdirAll("write", root, dir, 0o755); err != nil {
			return pending{}, backend.WriteResult{}, err
		}
		dirs[dir] = pfd
	}
	var st unix.Stat_t
	if err := fstatat(pfd, base, &st); err == nil {
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			return pending{}, backend.WriteResult{}, escapeErr("write", rel)
		case unix.S_IFDIR:
			return pending{}, backend.WriteResult{}, &fs.PathError{Op: "write", Path: rel, Err: unix.EISDIR}
		}
	}
	tmp, err := tempName(base)
	if err != nil {
		return pending{}, backend.WriteResult{}, err
	}
	fd, err := openatRetry(pfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return pending{}, backend.WriteResult{}, &fs.PathError{Op: "write", Path: rel, Err: err}
	}
	p := pending{dir: pfd, tmp: tmp, base: base}
	f := os.NewFile(uintptr(fd), tmp)
	res, err := fillTemp(ctx, f, rel, it)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("write %s: %w", rel, cerr)
	}
	if err != nil {
		_ = unix.Unlinkat(pfd, tmp, 0)
		return pending{}, backend.WriteResult{}, err
	}
	return p, res, nil
}

// fillTemp copies it.R into f while hashing, checks the checksum and sets
// the mode.
func fillTemp(ctx context.Context, f *os.File, rel string, it BatchItem) (backend.WriteResult, error) {
	h := sha256.New()
	n, err := copyChunks(ctx, io.MultiWriter(f, h), it.R)
	if err != nil {
		return backend.WriteResult{}, fmt.Errorf("write %s: %w", rel, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if it.SHA256 != "" && !strings.EqualFold(it.SHA256, sum) {
		return backend.WriteResult{}, fmt.Errorf("write %s: content has SHA-256 %s, planned %s: %w", rel, sum, strings.ToLower(it.SHA256), backend.ErrContentChanged)
	}
	if err := unix.Fchmod(int(f.Fd()), unixMode(it.Perm)); err != nil {
		return backend.WriteResult{}, &fs.PathError{Op: "chmod", Path: rel, Err: err}
	}
	return backend.WriteResult{Size: n, SHA256: sum}, nil
}

// EnsureRoot makes the root directory exist, as the seed's `mkdir -p
// <root>` when a manifest is applied (SPEC §4.1): missing parents and the
// root are created with mode 0755 (explicit chmod). Unlike Create, an
// existing directory is accepted whatever it holds (a container image may
// ship one); a root that is a symlink or not a directory is refused.
func (b *Backend) EnsureRoot(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	fi, err := os.Lstat(b.root)
	if errors.Is(err, fs.ErrNotExist) {
		if err := mkdirParents(b.root); err != nil {
			return err
		}
		fi, err = os.Lstat(b.root)
	}
	if err != nil {
		return fmt.Errorf("workspace root %s: %w", b.root, err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("refusing workspace root %s: it is a symlink", b.root)
	case !fi.IsDir():
		return fmt.Errorf("refusing workspace root %s: it exists and is not a directory", b.root)
	}
	return nil
}
