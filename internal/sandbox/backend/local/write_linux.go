//go:build linux

package local

import (
	"context"
	"crypto/rand"
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

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

// tmpInfix marks the temporary files WriteFile creates:
// ".<base>.sandbox-tmp-<12 hex digits>" in the target's directory.
const tmpInfix = ".sandbox-tmp-"

// WriteFile streams r into rel atomically. Missing parent directories are
// created with mode 0755 (explicit chmod). The content goes to a new
// temporary file ".<base>.sandbox-tmp-<random>" created with O_EXCL in the
// target directory (through that directory's descriptor), is copied through
// a 1 MiB buffer while being hashed with SHA-256, gets perm by fchmod
// (whatever the umask), is fsync-ed and then renamed over rel. When r fails,
// ctx is cancelled, or wantSHA256 (hex, case-insensitive; "" to skip) differs
// from the streamed bytes' hash, the temporary file is removed and rel is
// left as it was; the mismatch error wraps backend.ErrContentChanged. An
// existing rel that is a symlink (it would be followed) or on a path with a
// symlink gives an error wrapping backend.ErrEscapesRoot; an existing
// directory is an error.
func (b *Backend) WriteFile(ctx context.Context, rel string, r io.Reader, perm fs.FileMode, wantSHA256 string) (backend.WriteResult, error) {
	if err := ctx.Err(); err != nil {
		return backend.WriteResult{}, err
	}
	rel, err := cleanRel("write", rel)
	if err != nil {
		return backend.WriteResult{}, err
	}
	if rel == "." {
		return backend.WriteResult{}, errors.New("write: the workspace root is a directory, not a file")
	}
	root, err := b.openRoot("write")
	if err != nil {
		return backend.WriteResult{}, err
	}
	dir, base := path.Split(rel)
	pfd, err := mkdirAll("write", root, dir, 0o755)
	unix.Close(root)
	if err != nil {
		return backend.WriteResult{}, err
	}
	defer unix.Close(pfd)

	var st unix.Stat_t
	if err := fstatat(pfd, base, &st); err == nil {
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			return backend.WriteResult{}, escapeErr("write", rel)
		case unix.S_IFDIR:
			return backend.WriteResult{}, &fs.PathError{Op: "write", Path: rel, Err: unix.EISDIR}
		}
	}
	return writeTemp(ctx, pfd, rel, base, r, unixMode(perm), wantSHA256)
}

// writeTemp does the temporary-file part of WriteFile below the directory
// descriptor pfd.
func writeTemp(ctx context.Context, pfd int, rel, base string, r io.Reader, mode uint32, want string) (backend.WriteResult, error) {
	tmp, err := tempName(base)
	if err != nil {
		return backend.WriteResult{}, err
	}
	fd, err := openatRetry(pfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return backend.WriteResult{}, &fs.PathError{Op: "write", Path: rel, Err: err}
	}
	f := os.NewFile(uintptr(fd), tmp)
	closed, renamed := false, false
	defer func() {
		if !closed {
			f.Close()
		}
		if !renamed {
			_ = unix.Unlinkat(pfd, tmp, 0)
		}
	}()

	h := sha256.New()
	n, err := sandbox.CopyChunks(ctx, io.MultiWriter(f, h), r)
	if err != nil {
		return backend.WriteResult{}, fmt.Errorf("write %s: %w", rel, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if want != "" && !strings.EqualFold(want, sum) {
		return backend.WriteResult{}, fmt.Errorf("write %s: content has SHA-256 %s, planned %s: %w", rel, sum, strings.ToLower(want), backend.ErrContentChanged)
	}
	if err := unix.Fchmod(fd, mode); err != nil {
		return backend.WriteResult{}, &fs.PathError{Op: "chmod", Path: rel, Err: err}
	}
	if err := f.Sync(); err != nil {
		return backend.WriteResult{}, fmt.Errorf("write %s: %w", rel, err)
	}
	closed = true
	if err := f.Close(); err != nil {
		return backend.WriteResult{}, fmt.Errorf("write %s: %w", rel, err)
	}
	if err := ctx.Err(); err != nil {
		return backend.WriteResult{}, err
	}
	if err := unix.Renameat(pfd, tmp, pfd, base); err != nil {
		return backend.WriteResult{}, &fs.PathError{Op: "write", Path: rel, Err: err}
	}
	renamed = true
	return backend.WriteResult{Size: n, SHA256: sum}, nil
}

// tempName returns ".<base>.sandbox-tmp-<12 hex digits>", shortening base so
// the name stays within NAME_MAX (255 bytes).
func tempName(base string) (string, error) {
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", err
	}
	if limit := 255 - 1 - len(tmpInfix) - 2*len(rnd); len(base) > limit {
		base = base[:limit]
	}
	return "." + base + tmpInfix + hex.EncodeToString(rnd[:]), nil
}
