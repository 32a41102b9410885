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
	"strings"

	"golang.org/x/sys/unix"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/checksum"
)

// tmpInfix marks the temporary files writes create:
// ".<base>.sandbox-tmp-<12 hex digits>" in the target's directory.
const tmpInfix = ".sandbox-tmp-"

// ErrTempBusy is wrapped when another live write holds the temporary file of
// the same target (two writes of one path at once).
var ErrTempBusy = errors.New("another write of this file is in progress")

// WriteFile streams r into rel atomically. Missing parent directories are
// created with mode 0755 (explicit chmod). The content goes to the target's
// temporary file (see tempName), created with O_EXCL in the target directory
// (through that directory's descriptor) and flock-ed while it is written, is
// copied through a 1 MiB buffer while being hashed with SHA-256, gets perm by
// fchmod (whatever the umask), is fsync-ed and then renamed over rel. A
// temporary left by a write that was killed is removed first. When r fails,
// ctx is cancelled, or wantSHA256 (hex, case-insensitive; "" to skip) differs
// from the streamed bytes' hash, the temporary file is removed and rel is
// left as it was; the mismatch error wraps backend.ErrContentChanged. An
// existing rel that is a symlink (it would be followed) or on a path with a
// symlink gives an error wrapping backend.ErrEscapesRoot; an existing
// directory is an error.
//
// WriteFile is a batch of one file (see WriteBatch) that keeps its
// temporary file open and locked until it is fsync-ed and renamed, instead
// of one syncfs(2) for a whole batch.
func (b *Backend) WriteFile(ctx context.Context, rel string, r io.Reader, perm fs.FileMode, wantSHA256 string) (sandbox.WriteResult, error) {
	if err := ctx.Err(); err != nil {
		return sandbox.WriteResult{}, err
	}
	res, err := b.writeBatch(ctx, oneItem(BatchItem{Rel: rel, Perm: perm, SHA256: wantSHA256, R: r}), true)
	if err != nil {
		return sandbox.WriteResult{}, err
	}
	return res[0], nil
}

// oneItem is a WriteBatch source of the single item it.
func oneItem(it BatchItem) func() (BatchItem, error) {
	done := false
	return func() (BatchItem, error) {
		if done {
			return BatchItem{}, io.EOF
		}
		done = true
		return it, nil
	}
}

// staged is a temporary file filled with a target's content, waiting to be
// renamed over the target. f stays open (and flock-ed) until commit or
// abort, unless release let it go.
type staged struct {
	f    *os.File
	dir  *fd // the target's directory, owned by the batch
	tmp  string
	base string
	rel  string
	// written is the stamp of the content (see writtenStamp), nil when
	// its filesystem's times are coarse.
	written *writtenFile
}

// stage creates the temporary file of base below the directory pfd,
// streams it.R into it while hashing, checks the checksum and sets the
// mode. On error the temporary file is removed.
func stage(ctx context.Context, pfd *fd, rel, base string, it BatchItem) (*staged, sandbox.WriteResult, error) {
	f, tmp, err := createTemp(pfd, rel, base)
	if err != nil {
		return nil, sandbox.WriteResult{}, err
	}
	s := &staged{f: f, dir: pfd, tmp: tmp, base: base, rel: rel}
	res, err := fill(ctx, f, rel, it)
	if err != nil {
		s.abort()
		return nil, sandbox.WriteResult{}, err
	}
	s.written = writtenStamp(int(f.Fd()), res.SHA256)
	return s, res, nil
}

// fill copies it.R into f while hashing, checks the checksum and sets the
// mode. Content from a large enough regular file is copied inside the
// kernel and hashed back from f (kernelFill); anything else is streamed
// through a buffer and hashed on the way.
func fill(ctx context.Context, f *os.File, rel string, it BatchItem) (sandbox.WriteResult, error) {
	h := sha256.New()
	n, err := int64(0), errNoKernelCopy
	if src, counted := kernelSource(it.R); src != nil {
		n, err = kernelFill(ctx, f, src, h, counted)
	}
	if errors.Is(err, errNoKernelCopy) {
		n, err = checksum.CopyChunks(ctx, &hashingFile{f: f, h: h}, it.R)
	}
	if err != nil {
		return sandbox.WriteResult{}, fmt.Errorf("write %s: %w", rel, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if it.SHA256 != "" && !strings.EqualFold(it.SHA256, sum) {
		return sandbox.WriteResult{}, &ContentChangedError{Rel: rel, SHA256: sum, Planned: strings.ToLower(it.SHA256)}
	}
	if err := unix.Fchmod(int(f.Fd()), unixMode(it.Perm)); err != nil {
		return sandbox.WriteResult{}, &fs.PathError{Op: "chmod", Path: rel, Err: err}
	}
	return sandbox.WriteResult{Size: n, SHA256: sum}, nil
}

// release closes the temporary file (dropping its lock) but keeps it for a
// later rename: a batch stages far more files than it may keep open.
func (s *staged) release() error {
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	if err != nil {
		s.abort()
		return fmt.Errorf("write %s: %w", s.rel, err)
	}
	return nil
}

// commit fsyncs the temporary file (when still open), renames it over the
// target and closes it; the lock is held until the rename is done.
func (s *staged) commit(ctx context.Context) error {
	if s.f != nil {
		if err := s.f.Sync(); err != nil {
			s.abort()
			return fmt.Errorf("write %s: %w", s.rel, err)
		}
	}
	if err := ctx.Err(); err != nil {
		s.abort()
		return err
	}
	if err := unix.Renameat(s.dir.n(), s.tmp, s.dir.n(), s.base); err != nil {
		s.abort()
		return &fs.PathError{Op: "write", Path: s.rel, Err: err}
	}
	s.tmp = ""
	if s.f != nil {
		_ = s.f.Close() // synced and in place: nothing left to lose
		s.f = nil
	}
	return nil
}

// abort removes the temporary file (if not yet renamed) and closes it.
func (s *staged) abort() {
	if s.tmp != "" {
		_ = unix.Unlinkat(s.dir.n(), s.tmp, 0)
		s.tmp = ""
	}
	if s.f != nil {
		_ = s.f.Close()
		s.f = nil
	}
}

// tempName returns the temporary name of the target base in its directory:
// ".<base>.sandbox-tmp-<first 12 hex digits of the SHA-256 of base>", base
// shortened so the name stays within NAME_MAX (255 bytes). The name is the
// same for every write of one target, so a temporary left behind by a write
// that was killed is found by the next write or removal of that target
// without listing the directory, and no other file ever matches it.
func tempName(base string) string {
	sum := sha256.Sum256([]byte(base))
	suffix := hex.EncodeToString(sum[:6])
	short := base
	if limit := 255 - 1 - len(tmpInfix) - len(suffix); len(short) > limit {
		short = short[:limit]
	}
	return "." + short + tmpInfix + suffix
}

// createTemp removes a stale temporary file of base below dir (sweepTemp)
// and creates a new one with O_EXCL, mode 0600, holding an exclusive flock
// on it: the lock, which the kernel drops when the writing process dies,
// tells a live write from the debris of a killed one.
func createTemp(dir *fd, rel, base string) (*os.File, string, error) {
	tmp := tempName(base)
	if err := sweepTemp(dir, tmp); err != nil {
		return nil, "", &fs.PathError{Op: "write", Path: rel, Err: err}
	}
	f, err := dir.openAt(tmp, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW, 0o600) // read back to hash a kernel copy
	if err != nil {
		return nil, "", &fs.PathError{Op: "write", Path: rel, Err: err}
	}
	defer f.Close()
	if err := unix.Flock(f.n(), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		_ = unix.Unlinkat(dir.n(), tmp, 0)
		return nil, "", &fs.PathError{Op: "write", Path: rel, Err: err}
	}
	return f.file(tmp), tmp, nil
}

// sweepTemp removes the temporary file tmp below the directory dir when it is debris: a
// regular file no live write holds locked, or a symlink (removed itself,
// never followed). A locked one gives an error wrapping ErrTempBusy; a
// directory or device in its place is left alone and reported. A missing
// tmp is not an error.
func sweepTemp(dir *fd, tmp string) error {
	st, err := dir.statAt(tmp)
	if err != nil {
		return ignoreMissing(err)
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return ignoreMissing(unix.Unlinkat(dir.n(), tmp, 0))
	case unix.S_IFREG:
	default:
		return fmt.Errorf("%s, the name of this file's temporary copy, is taken by something that is not a file; remove it", tmp)
	}
	f, err := dir.openAt(tmp, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return ignoreMissing(err)
	}
	defer f.Close()
	if err := unix.Flock(f.n(), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		if errors.Is(err, unix.EWOULDBLOCK) {
			return fmt.Errorf("%s: %w", tmp, ErrTempBusy)
		}
		return err
	}
	return ignoreMissing(unix.Unlinkat(dir.n(), tmp, 0))
}

func ignoreMissing(err error) error {
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	return err
}

// closeDirs closes the directory descriptors of a write.
func closeDirs(dirs map[string]*fd) {
	for _, d := range dirs {
		d.Close()
	}
}
