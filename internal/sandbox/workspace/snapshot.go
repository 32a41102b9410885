package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/checksum"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/redact"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/snapshot"
)

// SnapshotRequest is one snapshot of a workspace to a local archive.
type SnapshotRequest struct {
	// BasePath is the directory holding the archive, relative to the
	// working directory unless absolute; created (0755) when missing.
	BasePath string
	// SnapshotID names the archive <BasePath>/<SnapshotID>.tar; a single
	// path segment.
	SnapshotID string
	// Exclude are workspace-relative paths left out, in addition to the
	// ephemeral entries recorded with the workspace (EphemeralPaths).
	Exclude []string
	// ManifestJSON is the Python SDK's manifest JSON whose digest enters the
	// fingerprint; nil means the default manifest with the workspace's root.
	ManifestJSON []byte
	// Limits bound the archive: its size and its members.
	Limits sandbox.OutputLimits
	// ExcludeUnsafe leaves out the members a restore would refuse
	// (SnapshotResult.Excluded) instead of failing the snapshot.
	ExcludeUnsafe bool
	// AllowSecrets lets files holding a write-only value the provider was
	// given (redact.WriteOnlyValues) into the snapshot; by default such a
	// file fails it with a *redact.SecretFileError.
	AllowSecrets bool
}

// writeOnlyGate is the values a snapshot or export refuses to carry:
// none when allowed.
func writeOnlyGate(allow bool) []redact.WriteOnlyValue {
	if allow {
		return nil
	}
	return redact.WriteOnlyValues()
}

// SnapshotResult is what a snapshot wrote.
type SnapshotResult struct {
	// Path is <BasePath>/<SnapshotID>.tar as given (relative paths stay
	// relative to the working directory).
	Path string
	snapshot.Summary
	// Excluded are the members left out with ExcludeUnsafe.
	Excluded []snapshot.Excluded
}

// HostPath resolves a host path given relative to the working directory.
func (e *Engine) HostPath(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(e.cfg.WorkingDir, p)
}

// Snapshot persists the workspace root as the Python SDK does
// (design/sdk-model.md §6.1) into a local archive: streamed from the
// backend into a temporary file beside the archive, then renamed into
// place, so a failed snapshot leaves no archive behind.
func (w *Workspace) Snapshot(ctx context.Context, req SnapshotRequest) (SnapshotResult, error) {
	rel, err := snapshot.LocalPath(req.BasePath, req.SnapshotID)
	if err != nil {
		return SnapshotResult{}, err
	}
	dest := w.eng.HostPath(rel)
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return SnapshotResult{}, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), "."+req.SnapshotID+".tar-*")
	if err != nil {
		return SnapshotResult{}, err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	sum, excluded, err := w.persistTo(ctx, req, tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dest)
	}
	if err != nil {
		return SnapshotResult{}, fmt.Errorf("snapshot of workspace %s: %w", w.ID, err)
	}
	return SnapshotResult{Path: rel, Summary: sum, Excluded: excluded}, nil
}

// persistTo writes the workspace's tar to out, leaving out req.Exclude, the
// recorded ephemeral entries (also dropped from the stream on the host,
// whatever the backend sent) and the mount patterns' generated
// configuration (credentials included), which are the Python SDK's
// runtime skip paths: never persisted. What
// the backend persists (inside the container for a container) is
// untrusted: it passes snapshot.Check on its way to out, so the archive
// is bounded by req.Limits and holds only members a restore accepts.
func (w *Workspace) persistTo(ctx context.Context, req SnapshotRequest, out io.Writer) (snapshot.Summary, []snapshot.Excluded, error) {
	digest, err := w.manifestDigest(req.ManifestJSON)
	if err != nil {
		return snapshot.Summary{}, nil, err
	}
	// The ephemeral entries recorded with the workspace are left out
	// whatever the configuration taking the snapshot knows of them.
	ephemeral, err := w.EphemeralPaths(ctx)
	if err != nil {
		return snapshot.Summary{}, nil, err
	}
	skip := slices.Concat(req.Exclude, ephemeral, sessionDirParents)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := w.drv.persist(ctx, w, skip, digest, pw)
		pw.CloseWithError(err)
		done <- err
	}()
	sum, excluded, cerr := snapshot.Check(ctx, pr, out, snapshot.CheckOptions{Limits: req.Limits,
		ExcludeUnsafe: req.ExcludeUnsafe, ManifestDigest: digest, Skip: skip,
		WriteOnly: writeOnlyGate(req.AllowSecrets)})
	if cerr == nil {
		_, cerr = io.Copy(io.Discard, pr) // what follows the end of the archive is not part of it
	}
	pr.CloseWithError(errors.New("the snapshot stopped"))
	if cerr != nil {
		cancel()
		if perr := <-done; perr != nil && errors.Is(cerr, perr) {
			return snapshot.Summary{}, nil, perr
		}
		return snapshot.Summary{}, nil, cerr
	}
	if err := <-done; err != nil {
		return snapshot.Summary{}, nil, err
	}
	return sum, excluded, nil
}

func (w *Workspace) manifestDigest(manifestJSON []byte) (string, error) {
	if manifestJSON == nil {
		m := manifest.New()
		m.Root = w.Root
		j, err := m.JSON()
		if err != nil {
			return "", err
		}
		manifestJSON = j
	}
	return snapshot.ManifestDigest(manifestJSON)
}

// ArchiveState is what is on disk at an archive's path.
type ArchiveState struct {
	// Exists is false when nothing is at the path.
	Exists bool
	// SHA256 (hex) and Size of the file there.
	SHA256 string
	Size   int64
}

// ReadArchive hashes the archive at p (relative to the working directory
// unless absolute). It only reads.
func (e *Engine) ReadArchive(ctx context.Context, p string) (ArchiveState, error) {
	f, err := os.Open(e.HostPath(p))
	if errors.Is(err, os.ErrNotExist) {
		return ArchiveState{}, nil
	}
	if err != nil {
		return ArchiveState{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := checksum.CopyChunks(ctx, h, f)
	if err != nil {
		return ArchiveState{}, err
	}
	return ArchiveState{Exists: true, SHA256: hex.EncodeToString(h.Sum(nil)), Size: n}, nil
}

// ErrArchiveChanged is wrapped when an archive's bytes differ from the
// SHA-256 it was written or named with.
var ErrArchiveChanged = errors.New("the archive differs from its sha256")

// RemoveArchive removes the archive at p if it still holds the bytes with
// the given SHA-256; a missing archive is not an error, a changed one is
// left in place (an error wrapping ErrArchiveChanged says so).
func (e *Engine) RemoveArchive(ctx context.Context, p, wantSHA256 string) error {
	st, err := e.ReadArchive(ctx, p)
	switch {
	case err != nil:
		return err
	case !st.Exists:
		return nil
	case st.SHA256 != wantSHA256:
		return fmt.Errorf("%w: %s was left in place (sha256 %s, written as %s)", ErrArchiveChanged, p, st.SHA256, wantSHA256)
	}
	return os.Remove(e.HostPath(p))
}

// Restore hydrates w from the archive at p (relative to the working
// directory unless absolute), which must have the given SHA-256; see
// RestoreFrom.
func (w *Workspace) Restore(ctx context.Context, p, wantSHA256 string) (snapshot.Summary, error) {
	return w.RestoreFrom(ctx, RestoreSource{Path: p}, wantSHA256)
}

// CheckArchive reads the archive at p and checks, writing nothing, that it
// has the given SHA-256 and that every member is safe to restore.
func (e *Engine) CheckArchive(ctx context.Context, p, wantSHA256 string) error {
	return e.CheckRestoreSource(ctx, RestoreSource{Path: p}, wantSHA256)
}
