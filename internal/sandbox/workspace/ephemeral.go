package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/snapshot"
)

// The ephemeral record: which paths of a workspace are ephemeral entries
// (the Python SDK's ephemeral = True), kept with the workspace itself so
// that a snapshot taken from any configuration, knowing only the
// workspace id, leaves them out. A local workspace keeps it in an extended
// attribute of its root beside the marker; a workspace inside a container
// in a file of the provider's directory outside the root
// (fshelper.DigestDir). The agent may be root in its container and can
// edit that file, so what is read back is untrusted: bounded in size, each
// path checked to be workspace-relative, and it only ever removes paths
// from a snapshot (a path naming nothing in the workspace removes
// nothing). An agent can therefore hide its own files from a snapshot, or
// let ephemeral entries into one, by editing the record.
const (
	ephemeralRecordName = "ephemeral"
	// MaxEphemeralRecord bounds the record's JSON in bytes.
	MaxEphemeralRecord = 64 << 10
	// MaxEphemeralPaths bounds the paths the record holds.
	MaxEphemeralPaths = 1024
	ephemeralVersion  = 1
)

// ErrEphemeralRecord is wrapped when a workspace's ephemeral record cannot
// be used: too large, not JSON of the expected shape, or not a file.
var ErrEphemeralRecord = errors.New("the workspace's record of ephemeral entries is not valid")

// recordStore is a backend that keeps small named records with the
// workspace (local: root extended attributes; containers: files outside
// the root).
type recordStore interface {
	ReadRecord(ctx context.Context, name string, limit int64) ([]byte, error)
	WriteRecord(ctx context.Context, name string, data []byte) error
}

// ephemeralRecord is the record's JSON: for each owner (an entry
// "entry:<path>", a manifest "manifest:<id>"), its ephemeral paths.
type ephemeralRecord struct {
	Version int                 `json:"version"`
	Owners  map[string][]string `json:"owners"`
}

// EntryOwner names the entry at rel as the owner of recorded paths.
func EntryOwner(rel string) string { return "entry:" + rel }

// ManifestOwner names the manifest application id as the owner of
// recorded paths.
func ManifestOwner(id string) string { return "manifest:" + id }

func (w *Workspace) records() (recordStore, error) {
	s, ok := w.Backend.(recordStore)
	if !ok {
		return nil, fmt.Errorf("workspace %s cannot keep a record of its ephemeral entries", w.ID)
	}
	return s, nil
}

// readEphemeral reads and decodes the record; none is an empty record.
func (w *Workspace) readEphemeral(ctx context.Context, s recordStore) (ephemeralRecord, error) {
	rec := ephemeralRecord{Version: ephemeralVersion, Owners: map[string][]string{}}
	data, err := s.ReadRecord(ctx, ephemeralRecordName, MaxEphemeralRecord)
	switch {
	case errors.Is(err, backend.ErrTooLarge):
		return rec, fmt.Errorf("%w: workspace %s: it holds more than %d bytes", ErrEphemeralRecord, w.ID, MaxEphemeralRecord)
	case errors.Is(err, fs.ErrInvalid):
		return rec, fmt.Errorf("%w: workspace %s: %w", ErrEphemeralRecord, w.ID, err)
	case err != nil:
		return rec, fmt.Errorf("reading the record of ephemeral entries of workspace %s: %w", w.ID, err)
	}
	if len(data) == 0 {
		return rec, nil
	}
	var got ephemeralRecord
	if err := json.Unmarshal(data, &got); err != nil || got.Version != ephemeralVersion {
		return rec, fmt.Errorf("%w: workspace %s: not a version %d record", ErrEphemeralRecord, w.ID, ephemeralVersion)
	}
	for owner, paths := range got.Owners {
		if len(paths) > 0 {
			rec.Owners[owner] = paths
		}
	}
	return rec, nil
}

// RecordEphemeral records that owner's ephemeral paths in w are paths
// (workspace-relative, checked with the entry path rules), replacing what
// owner had; no paths forgets owner. Updates of one workspace by this
// process are serialised.
func (w *Workspace) RecordEphemeral(ctx context.Context, owner string, paths []string) error {
	clean := make([]string, 0, len(paths))
	for _, p := range paths {
		c, err := ephemeralPath(p)
		if err != nil {
			return err
		}
		clean = append(clean, c)
	}
	s, err := w.records()
	if err != nil {
		if len(clean) == 0 {
			return nil
		}
		return err
	}
	v, _ := w.eng.recordLocks.LoadOrStore(w.ID, &sync.Mutex{})
	mu, _ := v.(*sync.Mutex)
	mu.Lock()
	defer mu.Unlock()
	rec, err := w.readEphemeral(ctx, s)
	if err != nil {
		if len(clean) > 0 {
			return fmt.Errorf("%w; remove it to start a new one (its paths are then forgotten: re-apply the "+
				"ephemeral entries with terraform apply -replace)", err)
		}
		return err
	}
	if len(clean) == 0 {
		if _, ok := rec.Owners[owner]; !ok {
			return nil
		}
		delete(rec.Owners, owner)
	} else {
		sort.Strings(clean)
		rec.Owners[owner] = clean
	}
	n := 0
	for _, ps := range rec.Owners {
		n += len(ps)
	}
	if n > MaxEphemeralPaths {
		return fmt.Errorf("workspace %s would record %d ephemeral paths; at most %d are kept", w.ID, n, MaxEphemeralPaths)
	}
	var data []byte
	if len(rec.Owners) > 0 {
		if data, err = json.Marshal(rec); err != nil {
			return err
		}
		if len(data) > MaxEphemeralRecord {
			return fmt.Errorf("the record of ephemeral entries of workspace %s would be %d bytes; at most %d are kept",
				w.ID, len(data), MaxEphemeralRecord)
		}
	}
	if err := s.WriteRecord(ctx, ephemeralRecordName, data); err != nil {
		return fmt.Errorf("recording the ephemeral entries of workspace %s: %w", w.ID, err)
	}
	return nil
}

// ephemeralPath checks a recorded path: workspace-relative, no "..", not
// the root; it returns the clean form.
func ephemeralPath(p string) (string, error) {
	if len(p) > 4096 || strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("ephemeral path %.64q... is not a workspace path", p)
	}
	rel, err := posix.ValidateEntryPath(p)
	if err != nil {
		return "", err
	}
	return snapshot.CleanExclude(rel)
}

// EphemeralPaths returns the workspace-relative paths recorded as
// ephemeral in w, sorted and de-duplicated; a workspace created before
// the record existed has none. Recorded paths that are not
// workspace-relative (absolute, with "..", the root itself) are ignored:
// they can name nothing inside the workspace. A record that is too
// large, malformed or holds more than MaxEphemeralPaths paths is an error
// wrapping ErrEphemeralRecord.
func (w *Workspace) EphemeralPaths(ctx context.Context) ([]string, error) {
	s, err := w.records()
	if err != nil {
		return nil, nil //nolint:nilerr // a kind that keeps no record has nothing recorded
	}
	rec, err := w.readEphemeral(ctx, s)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, ps := range rec.Owners {
		for _, p := range ps {
			c, err := ephemeralPath(p)
			if err != nil || seen[c] {
				continue
			}
			if seen[c] = true; len(seen) > MaxEphemeralPaths {
				return nil, fmt.Errorf("%w: workspace %s: it holds more than %d paths", ErrEphemeralRecord, w.ID, MaxEphemeralPaths)
			}
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out, nil
}

// EphemeralPaths returns the paths of the plan's entries, nested ones
// included, that are ephemeral, except mount entries (a mount point is
// never persisted, and the Python SDK refuses a skip path overlapping
// one) and the root (a snapshot of nothing is not what the Python SDK
// makes of it either: its skip rule ignores ".").
func (p *ManifestPlan) EphemeralPaths() []string {
	var out []string
	for _, pe := range p.Entries {
		if pe.Entry != nil && pe.Entry.Ephemeral && pe.Path != "." && pe.Path != "" && pe.Mount == nil && !manifest.IsMountEntryType(pe.Entry.Type) {
			out = append(out, pe.Path)
		}
	}
	return out
}
