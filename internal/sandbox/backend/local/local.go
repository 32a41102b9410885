// Package local implements backend.Backend for a workspace that is a
// directory on the host.
//
// Every path operation resolves the workspace-relative path beneath the root
// directory descriptor with openat2(2) and RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS
// (or, on kernels without openat2, an equivalent component-by-component
// openat(2) walk with O_NOFOLLOW): a symlink anywhere inside the workspace
// path is never followed, and an operation that would need to follow one
// fails with an error wrapping backend.ErrEscapesRoot that names the path.
// Writes are atomic and streamed (a temporary file beside the target, fsync,
// rename), and modes are set with an explicit chmod so the umask never
// matters. Path operations are implemented on Linux only; on other systems
// they return an error wrapping errors.ErrUnsupported.
package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

// Kind is the value returned by Backend.Kind.
const Kind = "local"

// Backend is a workspace rooted at a host directory. The zero value is not
// usable; call New. A Backend holds no open descriptors between calls, so a
// root that is removed and re-created is picked up by the next call.
type Backend struct {
	root string
	// written, when set (KeepDigests), remembers the files this backend
	// wrote until RememberWritten records them in the digest cache.
	written *writtenFiles
	// fileDigests makes HashFile go through the digest cache
	// (KeepDigests, CacheFileDigests).
	fileDigests bool
}

var _ backend.Backend = (*Backend)(nil)

// New returns a Backend for the host directory root. root is cleaned; a
// relative root is made absolute against the process working directory.
// New does not touch the filesystem (see Create).
func New(root string) *Backend {
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	return &Backend{root: filepath.Clean(root)}
}

// KeepDigests makes b a workspace on the provider's own host: HashFile
// caches the digest of each file (CacheFileDigests), and the digests of
// files b writes are recorded there by RememberWritten, so the next plan
// stats them instead of reading them.
func (b *Backend) KeepDigests() *Backend {
	b.written = &writtenFiles{m: map[string]writtenFile{}}
	return b.CacheFileDigests()
}

// CacheFileDigests makes HashFile keep the digest of each file it hashes in
// the digest cache (package digestcache, one scope per file, the rules of
// WalkFiles), so hashing an unchanged file again is a stat. The file helper
// in a container sets it, with the cache pinned outside the workspace; it
// records nothing about writes.
func (b *Backend) CacheFileDigests() *Backend {
	b.fileDigests = true
	return b
}

// Kind returns "local".
func (b *Backend) Kind() string { return Kind }

// Root returns the absolute, cleaned host path of the workspace root.
func (b *Backend) Root() string { return b.root }

// Exists reports whether the root is a directory (checked with lstat, so a
// symlink in its place counts as absent). A missing root, or one replaced
// by a file or a symlink, gives (false, nil) so the workspace is planned for
// re-creation (where Create reports the obstacle); other lstat failures are
// returned.
func (b *Backend) Exists(ctx context.Context) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	fi, err := os.Lstat(b.root)
	switch {
	case err == nil:
		return fi.IsDir(), nil
	case errors.Is(err, fs.ErrNotExist), isNotDir(err):
		return false, nil
	}
	return false, err
}

// Create makes the workspace root. Missing parents are created with mode
// 0755 and the root with 0755 (each with an explicit chmod, whatever the
// umask). An existing empty directory is accepted as is (its mode is left
// alone). Errors: "refusing to create a workspace in non-empty directory
// <root>" for an existing directory with any entry; an existing root that is
// a symlink or not a directory is refused too.
func (b *Backend) Create(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		fi, err := os.Lstat(b.root)
		if err == nil {
			return b.checkExistingRoot(fi)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("workspace root %s: %w", b.root, err)
		}
		if err := mkdirParents(filepath.Dir(b.root)); err != nil {
			return err
		}
		err = os.Mkdir(b.root, 0o755)
		if errors.Is(err, fs.ErrExist) && attempt == 0 {
			continue // created concurrently: check it like an existing root
		}
		if err != nil {
			return fmt.Errorf("create workspace root: %w", err)
		}
		if err := os.Chmod(b.root, 0o755); err != nil {
			return fmt.Errorf("create workspace root: %w", err)
		}
		return nil
	}
}

func (b *Backend) checkExistingRoot(fi fs.FileInfo) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("refusing to create a workspace at %s: it is a symlink", b.root)
	case !fi.IsDir():
		return fmt.Errorf("refusing to create a workspace at %s: it exists and is not a directory", b.root)
	}
	d, err := os.Open(b.root)
	if err != nil {
		return fmt.Errorf("workspace root: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(1)
	if len(names) > 0 {
		return fmt.Errorf("refusing to create a workspace in non-empty directory %s", b.root)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("workspace root: %w", err)
	}
	return nil
}

// mkdirParents creates dir and its missing ancestors with mode 0755 each.
func mkdirParents(dir string) error {
	if fi, err := os.Stat(dir); err == nil {
		if !fi.IsDir() {
			return fmt.Errorf("create workspace root: %s is not a directory", dir)
		}
		return nil
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := mkdirParents(parent); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil
		}
		return fmt.Errorf("create workspace root: %w", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return fmt.Errorf("create workspace root: %w", err)
	}
	return nil
}

// Destroy removes the root and everything below it. No symlink is followed
// (a symlink below the root is removed, never its target). A missing root
// is not an error.
func (b *Backend) Destroy(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkNoMounts(b.root); err != nil {
		return fmt.Errorf("destroy workspace: %w", err)
	}
	if err := os.RemoveAll(b.root); err != nil {
		return fmt.Errorf("destroy workspace: %w", err)
	}
	return nil
}
