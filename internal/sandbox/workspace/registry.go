package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Record is what the registry remembers about one workspace: enough for an
// entry resource, which knows only the workspace id, to reach the workspace.
type Record struct {
	// ID is the workspace id (a UUID, new on every creation).
	ID string `json:"id"`
	// Kind is the backend kind: "local" (and later "docker").
	Kind string `json:"kind"`
	// Root is the absolute workspace root as seen inside the workspace
	// (for a local workspace, the host directory).
	Root string `json:"root"`
	// ContainerID is the Docker container id of a docker workspace.
	ContainerID string `json:"container_id,omitempty"`
	// Environment is the workspace's environment (the seed's manifest
	// environment), added to every command run in it.
	Environment map[string]string `json:"environment,omitempty"`
}

// Registry maps workspace ids to Records. It is a directory of small JSON
// files, one per workspace, under the provider's local_base_dir
// (<local_base_dir>/.workspaces/<id>.json), written atomically. It is a
// cache of what Terraform state already knows: a missing record makes the
// workspace look vanished, which Terraform then plans to re-create.
type Registry struct {
	dir string
}

// ErrUnknownWorkspace is returned by Registry.Get for an id with no record.
var ErrUnknownWorkspace = errors.New("unknown workspace id")

var idPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// ValidID reports whether id has the workspace id shape (a lower-case
// UUID), so that it can never name a file outside the registry.
func ValidID(id string) bool { return idPattern.MatchString(id) }

// NewRegistry returns the registry kept below baseDir (absolute).
func NewRegistry(baseDir string) *Registry {
	return &Registry{dir: filepath.Join(baseDir, ".workspaces")}
}

func (r *Registry) file(id string) (string, error) {
	if !ValidID(id) {
		return "", fmt.Errorf("invalid workspace id %q: expected a lower-case UUID such as 0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11", id)
	}
	return filepath.Join(r.dir, id+".json"), nil
}

// Put stores rec, replacing any record with the same id.
func (r *Registry) Put(rec Record) error {
	name, err := r.file(rec.ID)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return fmt.Errorf("creating workspace registry %s: %w", r.dir, err)
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(r.dir, "."+rec.ID+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing workspace registry: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("writing workspace registry: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing workspace registry: %w", err)
	}
	return os.Rename(tmp.Name(), name)
}

// Get returns the record for id, or an error wrapping ErrUnknownWorkspace.
func (r *Registry) Get(id string) (Record, error) {
	name, err := r.file(id)
	if err != nil {
		return Record{}, err
	}
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return Record{}, fmt.Errorf("%w %s (no record in %s)", ErrUnknownWorkspace, id, r.dir)
	}
	if err != nil {
		return Record{}, err
	}
	var rec Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return Record{}, fmt.Errorf("reading workspace registry record %s: %w", name, err)
	}
	return rec, nil
}

// FindByRoot returns the record of the local workspace whose root is root.
func (r *Registry) FindByRoot(kind, root string) (Record, bool, error) {
	matches, err := filepath.Glob(filepath.Join(r.dir, "*.json"))
	if err != nil {
		return Record{}, false, err
	}
	for _, m := range matches {
		id := filepath.Base(m)
		id = id[:len(id)-len(".json")]
		rec, err := r.Get(id)
		if err != nil {
			continue
		}
		if rec.Kind == kind && rec.Root == root {
			return rec, true, nil
		}
	}
	return Record{}, false, nil
}

// All returns every record in the registry (unreadable ones skipped).
func (r *Registry) All() ([]Record, error) {
	matches, err := filepath.Glob(filepath.Join(r.dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var recs []Record
	for _, m := range matches {
		id := strings.TrimSuffix(filepath.Base(m), ".json")
		if rec, err := r.Get(id); err == nil {
			recs = append(recs, rec)
		}
	}
	return recs, nil
}

// Delete removes the record for id; a missing record is not an error.
func (r *Registry) Delete(id string) error {
	name, err := r.file(id)
	if err != nil {
		return err
	}
	if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
