// Package backend defines the Backend interface that every workspace kind
// (a host directory, a Docker container) implements. The engine applies
// entries only through this interface, so every entry kind works on every
// backend.
//
// Paths given to a Backend are workspace-relative POSIX paths that the
// caller has already validated with the Python SDK's path rules (sandbox.
// ValidateEntryPath); "." names the root itself. A Backend must still make
// sure that no operation ever follows a symlink out of the root: a path whose
// resolution would leave the root fails with an error wrapping
// ErrEscapesRoot.
package backend

import (
	"context"
	"errors"
	"io"
	"io/fs"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// ErrEscapesRoot is wrapped by every error returned when a path, resolved
// inside the workspace, would leave the workspace root (for example because
// a component is a symlink pointing outside). It maps to the Python SDK's
// escape_root reason.
var ErrEscapesRoot = errors.New("path escapes the workspace root")

// ErrStopped is wrapped when the workspace exists but is not running (a
// stopped or paused container), so nothing inside it can be read or run.
var ErrStopped = errors.New("the workspace is stopped")

// ErrNotExist is fs.ErrNotExist; Stat and friends wrap it for missing paths.
var ErrNotExist = fs.ErrNotExist

// FileInfo describes one path inside a workspace, as seen without following
// a symlink at the final component.
type FileInfo struct {
	// Path is the workspace-relative POSIX path that was asked for.
	Path string
	// IsDir, IsRegular and IsSymlink give the file type (exactly one is true
	// for the types the engine deals with; other types have all false).
	IsDir, IsRegular, IsSymlink bool
	// Perm holds the permission bits (0o777 mask) only.
	Perm fs.FileMode
	// Size is the size in bytes of a regular file.
	Size int64
	// Gid is the numeric group id; Group is its name when the backend can
	// resolve it, else the decimal gid.
	Gid   int
	Group string
	// Uid is the numeric owner id; Owner is its user name when the backend
	// can resolve it, else the decimal uid.
	Uid   int
	Owner string
}

// TreeFile is one regular file found below a directory by WalkFiles.
type TreeFile struct {
	// Rel is the POSIX path relative to the walked directory.
	Rel string
	// Size in bytes.
	Size int64
	// SHA256 is the lower-case hex SHA-256 of the content.
	SHA256 string
	// Perm holds the permission bits.
	Perm fs.FileMode
	// Uid and Gid are the numeric owner and group.
	Uid, Gid int
}

// Backend is one workspace: a root directory on the host or inside a
// container. Every method is safe to call concurrently on distinct paths.
type Backend interface {
	// Kind names the backend ("local" or "docker").
	Kind() string
	// Root is the absolute workspace root as seen inside the workspace.
	Root() string
	// Exists reports whether the workspace (its root directory, its
	// container) is still there. A vanished workspace is not an error.
	// It only observes: a stopped container is reported as existing and
	// is not started.
	Exists(ctx context.Context) (bool, error)

	// Stat describes rel without following a final symlink.
	Stat(ctx context.Context, rel string) (FileInfo, error)
	// MkdirAll creates rel and any missing parents; created directories get
	// perm exactly (an explicit chmod after creation, so the umask never
	// matters). Existing directories are left as they are.
	MkdirAll(ctx context.Context, rel string, perm fs.FileMode) error
	// WriteFile streams r into rel atomically: a temporary file in the same
	// directory, fsync, then rename over rel. Missing parents are created
	// with mode 0755. The final file gets perm exactly. If r fails or ctx is
	// cancelled, no partial file is left behind. When wantSHA256 is not
	// empty and the streamed bytes hash differently, nothing is renamed into
	// place and an error wrapping ErrContentChanged is returned.
	WriteFile(ctx context.Context, rel string, r io.Reader, perm fs.FileMode, wantSHA256 string) (sandbox.WriteResult, error)
	// Chmod sets the permission bits of rel (no symlink is followed).
	Chmod(ctx context.Context, rel string, perm fs.FileMode) error
	// Chgrp changes the group of rel to the named group (no symlink is
	// followed). An unknown group is an error naming it.
	Chgrp(ctx context.Context, rel string, group string) error
	// Chown changes the owner (a user name known to the workspace or a
	// decimal uid) and the group (likewise) of rel. No owner leaves the
	// owner alone; an owner with no group gives its primary group too, as
	// `chown owner:` does (a uid no account has leaves the group alone).
	// With tree, every directory and regular file below rel changes
	// too, in one operation, never following a symlink nor entering another
	// filesystem. An unknown user or group is an error naming it.
	Chown(ctx context.Context, rel, owner, group string, tree bool) error
	// HashFile returns the SHA-256 (hex) and size of the regular file rel.
	HashFile(ctx context.Context, rel string) (sha256 string, size int64, err error)
	// WalkFiles lists every regular file below the directory rel with its
	// hash, sorted by Rel. A symlink below rel is reported in the result as
	// an error wrapping ErrEscapesRoot only if following it were needed;
	// WalkFiles itself never follows one and lists it with SHA256 "".
	WalkFiles(ctx context.Context, rel string) ([]TreeFile, error)
	// Remove deletes the file or empty directory rel. Missing is not an
	// error.
	Remove(ctx context.Context, rel string) error
	// RemoveAll deletes rel and everything below it without following
	// symlinks. Missing is not an error.
	RemoveAll(ctx context.Context, rel string) error
	// RemoveTree undoes a tree copy in one operation (one round trip): it
	// removes the listed files (paths relative to the directory rel; a
	// listed path that is now a directory, or lies on another filesystem
	// mounted inside rel, is kept), then the directories below rel left
	// empty, then rel itself when nothing but empty directories is left
	// below it. No symlink is followed. A missing rel, or one that is no
	// longer a directory, is left alone (Gone in the report).
	RemoveTree(ctx context.Context, rel string, files []string) (RemoveReport, error)

	// Exec runs one command in the workspace and returns its output and
	// exit code. A non-zero exit is not an error here (callers decide, as
	// the Python SDK's ExecNonZeroError); an error means the command could not be
	// run or did not finish (ErrExecTimeout).
	Exec(ctx context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error)
}

// RemoveReport is what RemoveTree left in place.
type RemoveReport struct {
	// Left counts the files (and symlinks and other non-directories) below
	// rel that were not listed, so were left with rel.
	Left int `json:"left,omitempty"`
	// Kept lists the listed paths that were directories (written there by
	// others), left in place.
	Kept []string `json:"kept,omitempty"`
	// Gone is true when rel was missing or not a directory.
	Gone bool `json:"gone,omitempty"`
}

// ErrContentChanged is wrapped when streamed content does not match the
// checksum the caller planned with (a host source edited between plan and
// apply).
var ErrContentChanged = errors.New("content changed since plan")

// BatchFile is one file of a BatchWriter.WriteFiles call.
type BatchFile struct {
	// Rel is the workspace-relative POSIX path to write.
	Rel string
	// Size is the exact number of bytes Open's reader yields; a reader that
	// yields another number fails the batch (the source changed).
	Size int64
	// Perm holds the permission bits the file gets.
	Perm fs.FileMode
	// SHA256 is the hex digest the content must have ("" skips the check);
	// a mismatch fails the batch with an error wrapping ErrContentChanged.
	SHA256 string
	// ReplaceEmptyDir lets a directory at Rel that holds nothing but empty
	// directories give way to the file (a file of a copied tree that was
	// replaced by a directory); without it, or when that directory holds
	// anything else, a directory at Rel fails the write. The directory is
	// removed when the file is staged, so a batch failing later leaves it
	// removed (it held nothing).
	ReplaceEmptyDir bool
	// Open returns the content; it is called once, when the file's turn in
	// the stream comes, and the reader is closed after it.
	Open func(ctx context.Context) (io.ReadCloser, error)
}

// BatchWriter is implemented by backends for which one stream of many
// files is much cheaper than one WriteFile per file (a container, where
// each call is a round trip to the daemon). WriteFiles writes every file
// with WriteFile's guarantees (streamed, hashed, atomic per file, exact
// mode) and returns one WriteResult per file, in order. On error no file of
// the batch has been renamed into place.
type BatchWriter interface {
	WriteFiles(ctx context.Context, files []BatchFile) ([]sandbox.WriteResult, error)
}
