package hostsource

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/checksum"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// DefaultLocalDirFiles is the number of files ScanDir hashes at the same
// time when Policy.LocalDirFiles is 0: the Python SDK's
// SandboxConcurrencyLimits.local_dir_files default (design/sdk-model.md §4.4).
const DefaultLocalDirFiles = 4

// Policy decides which host files a workspace may copy from (the
// `source` of a file, a local directory copy) and reads them safely, following
// the Python SDK's LocalFile and LocalDir rules (design/sdk-model.md §2.4, §2.5): sources lie under
// BaseDir or under an extra path grant, no symlink is ever followed, and files
// are opened by a pinned no-follow walk of directory descriptors so that a
// path swapped between the check and the read is detected.
//
// The zero value uses the process working directory as BaseDir and has no
// grants. Reading is supported on Linux only; other systems get an error
// wrapping errors.ErrUnsupported from every method that opens a source.
type Policy struct {
	// BaseDir is the absolute host directory relative sources are resolved
	// against (Terraform's working directory, the Python SDK's base_dir). "" means
	// the process working directory. It is cleaned but symlinks in it are not
	// resolved.
	BaseDir string
	// Grants are the provider's extra_path_grants: a source may also lie
	// under a grant's root as ResolveGrantRoot gives it (HostRoot() with symlinks followed,
	// design/sdk-model.md §3.6; a grant that does not resolve is ignored). Read-only grants
	// allow reading like any other.
	Grants []posix.PathGrant
	// AllowHardLinks accepts regular files with more than one link. By
	// default such a file is refused with reason hard_link_not_supported:
	// a hard link can give a name inside the working directory to a file
	// that lies outside it and outside every grant, and names are all the
	// path rules can check.
	AllowHardLinks bool
	// LocalDirFiles bounds how many files ScanDir hashes concurrently;
	// 0 or less means DefaultLocalDirFiles.
	LocalDirFiles int
}

// Resolve returns the absolute host path of src (relative to BaseDir unless
// absolute; cleaned lexically, symlinks not resolved) after checking that it
// lies under BaseDir or under a grant's resolved HostRoot(). It does not
// touch the file itself. Outside both, the error is a *Error with code
// local_file_read_error and context reason "outside_base_dir", "base_dir"
// (the absolute BaseDir) and, when grants exist, "extra_path_grants" (the
// grants' Path values), as the Python SDK's LocalFile (design/sdk-model.md §2.4).
func (p Policy) Resolve(src string) (string, error) {
	abs, _, err := p.locate(src)
	if err != nil {
		return "", p.fileError(src, err)
	}
	return abs, nil
}

// DigestFile checks and opens the host file src by the LocalFile rules (see
// OpenFile) and returns its absolute path and SHA-256 (FileDigest's SHA256,
// Base64SHA256 and Size; the other digests are ""), read in
// DigestChunkSize chunks. Errors are *Error: LocalFileReadError with the
// Python SDK's reasons (outside_base_dir, path_not_found, symlink_not_supported
// with "child", path_changed_during_copy; a non-regular file has context
// "file_type"), or LocalChecksumError when reading fails while hashing.
//
// The checksums come from the digest cache (package digestcache) when the
// file's device, inode, size and times are those it had when last hashed.
func (p Policy) DigestFile(ctx context.Context, src string) (string, checksum.FileDigest, error) {
	return p.DigestFileWith(ctx, src, 0)
}

// DigestFileWith is DigestFile computing the digests of want beside SHA-256,
// in the same single read of the file.
func (p Policy) DigestFileWith(ctx context.Context, src string, want checksum.DigestSet) (string, checksum.FileDigest, error) {
	start := time.Now().UnixNano()
	f, _, err := p.OpenFile(ctx, src)
	if err != nil {
		return "", checksum.FileDigest{}, err
	}
	defer f.Close()
	d, err := digestOpened(ctx, f, start, want)
	if err != nil {
		return "", checksum.FileDigest{}, sandbox.NewLocalChecksumError(src, err)
	}
	return f.Name(), d, nil
}

// OpenFile opens the regular host file src for reading by the Python SDK's
// LocalFile rules (design/sdk-model.md §2.4): src is confined as in Resolve; every path
// component from the anchor (BaseDir, or the grant root, for a relative src;
// "/" for an absolute one) down to the file is lstat-ed (missing →
// path_not_found, symlink → symlink_not_supported with "child" relative to
// BaseDir, absolute when outside); then the anchor is opened and each
// component with openat(O_NOFOLLOW|O_DIRECTORY), the file with O_NOFOLLOW, and
// each opened descriptor is compared with the earlier lstat, so a swap is
// reported as path_changed_during_copy (or symlink_not_supported when a
// symlink was planted). The returned file's Name() is its absolute path and
// the FileInfo comes from fstat of the open descriptor. The caller closes
// the file. Errors are *Error with code local_file_read_error.
func (p Policy) OpenFile(ctx context.Context, src string) (*os.File, os.FileInfo, error) {
	f, fi, err := p.openFile(ctx, src)
	if err != nil {
		return nil, nil, p.fileError(src, err)
	}
	return f, fi, nil
}

func (p Policy) openFile(ctx context.Context, src string) (*os.File, os.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	abs, anchor, err := p.locate(src)
	if err != nil {
		return nil, nil, err
	}
	return p.openLeaf(abs, anchor)
}

// openLeaf inspects and opens the regular file abs from anchor.
func (p Policy) openLeaf(abs, anchor string) (*os.File, os.FileInfo, error) {
	t, err := p.inspect(abs, anchor)
	if err != nil {
		return nil, nil, err
	}
	if fi := t.leafInfo(); !fi.Mode().IsRegular() {
		return nil, nil, typeFault(fi, "regular file")
	}
	if testHookBeforeOpen != nil {
		testHookBeforeOpen(abs)
	}
	f, err := openPinned(t, false)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fault("", "", err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fault(sandbox.ReasonPathChangedDuringCopy, "", fmt.Errorf("%s is no longer a regular file", abs))
	}
	if err := p.checkLinks(fi, ""); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// ScanDir lists and hashes every regular file below the host directory src
// by the Python SDK's LocalDir rules (design/sdk-model.md §2.5): the directory itself is checked
// as OpenFile checks a file; then its tree is walked through directory
// descriptors without ever following a symlink — any symlink (to a file or a
// directory) aborts with reason symlink_not_supported and "child" = its path
// relative to src; sockets, fifos and devices are skipped; empty directories
// do not appear. Files are streamed through SHA-256 in DigestChunkSize chunks
// by at most LocalDirFiles workers, so memory stays bounded whatever the tree
// size. Errors are *Error with code local_dir_read_error, or
// local_checksum_error (src "<src>/<rel>") when a read fails while hashing.
func (p Policy) ScanDir(ctx context.Context, src string) (checksum.TreeDigest, error) {
	err := ctx.Err()
	var t *hostTarget
	if err == nil {
		t, err = p.dirTarget(src)
	}
	if err == nil {
		var td checksum.TreeDigest
		if td, err = p.scanTree(ctx, t); err == nil {
			td.Source = src
			return td, nil
		}
	}
	return checksum.TreeDigest{}, p.dirError(src, err)
}

// dirTarget locates and inspects the host directory src: confined, no
// symlink on the way, a directory. Errors are internal faults for dirError.
func (p Policy) dirTarget(src string) (*hostTarget, error) {
	abs, anchor, err := p.locate(src)
	if err != nil {
		return nil, err
	}
	t, err := p.inspect(abs, anchor)
	if err != nil {
		return nil, err
	}
	if fi := t.leafInfo(); !fi.IsDir() {
		return nil, typeFault(fi, "directory")
	}
	return t, nil
}

// CheckDir checks, without reading it, that src is a host directory the
// policy allows: under BaseDir or a grant, with no symlink on the way (the
// LocalDir rules). It returns its absolute path. A local Git repository
// (a file:// clone URL) is confined by it like any other host source.
func (p Policy) CheckDir(src string) (string, error) {
	t, err := p.dirTarget(src)
	if err != nil {
		return "", p.dirError(src, err)
	}
	return t.abs, nil
}

// TreeVisit is one regular file of a directory walked by VisitDir.
type TreeVisit struct {
	// Rel is the POSIX path relative to the walked directory.
	Rel string
	// Perm holds the file's permission bits and Size its size from fstat.
	Perm fs.FileMode
	Size int64
	// File is the file, opened through the pinned no-follow walk; it is
	// closed when the visit returns.
	File *os.File
}

// VisitDir walks the host directory src with exactly ScanDir's checks
// (confinement, no symlink anywhere, pinned no-follow opens, sockets and
// FIFOs skipped) but hashes nothing: fn is called for every regular file,
// concurrently by at most LocalDirFiles workers, with the file open. The
// first error fn returns stops the walk and is returned as it is. The returned TreeDigest lists the
// files with Size and Perm and no hashes. An apply uses it to copy what a
// plan already hashed, reading each file once.
func (p Policy) VisitDir(ctx context.Context, src string, fn func(TreeVisit) error) (checksum.TreeDigest, error) {
	err := ctx.Err()
	var abs, anchor string
	if err == nil {
		abs, anchor, err = p.locate(src)
	}
	if err == nil {
		var t *hostTarget
		if t, err = p.inspect(abs, anchor); err == nil {
			if fi := t.leafInfo(); !fi.IsDir() {
				err = typeFault(fi, "directory")
			} else {
				var (
					td    checksum.TreeDigest
					mu    sync.Mutex
					fnErr error
				)
				td, err = p.visitTree(ctx, t, func(v TreeVisit) error {
					err := fn(v)
					if err != nil {
						mu.Lock()
						if fnErr == nil {
							fnErr = err
						}
						mu.Unlock()
					}
					return err
				})
				if err == nil {
					td.Source = src
					return td, nil
				}
				if fnErr != nil {
					return checksum.TreeDigest{}, fnErr
				}
			}
		}
	}
	return checksum.TreeDigest{}, p.dirError(src, err)
}

func (p Policy) workers() int {
	if p.LocalDirFiles > 0 {
		return p.LocalDirFiles
	}
	return DefaultLocalDirFiles
}

// OpenTreeFile reopens the regular file rel (a POSIX path relative to
// tree.Root, as in tree.Files) through the same checks and pinned no-follow
// walk as OpenFile, for copying it at apply time; compare the copied bytes
// with the TreeFile's SHA256 to detect an edit since the scan. rel must be
// clean and relative without ".." segments. tree normally comes from
// ScanDir of the same policy; a TreeDigest built by hand needs only Root and
// is treated as a relative source. Errors are *Error with code
// local_dir_read_error.
func (p Policy) OpenTreeFile(ctx context.Context, tree checksum.TreeDigest, rel string) (*os.File, error) {
	src := tree.Source
	if src == "" {
		src = tree.Root
	}
	if err := ctx.Err(); err != nil {
		return nil, p.dirError(src, err)
	}
	if rel == "" || rel == "." || path.IsAbs(rel) || path.Clean(rel) != rel || rel == ".." || strings.HasPrefix(rel, "../") {
		return nil, p.dirError(src, fault("", rel, fmt.Errorf("invalid tree path %q: want a clean relative path without \"..\"", rel)))
	}
	base, err := p.baseDir()
	if err != nil {
		return nil, p.dirError(src, err)
	}
	abs := filepath.Join(filepath.Clean(tree.Root), filepath.FromSlash(rel))
	_, anchor, err := p.confine(abs, base, !filepath.IsAbs(tree.Source))
	if err != nil {
		return nil, p.dirError(src, err)
	}
	f, _, err := p.openLeaf(abs, anchor)
	if err != nil {
		return nil, p.dirError(src, err)
	}
	return f, nil
}
