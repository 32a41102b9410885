package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/local"
)

// Before workspace ids said where their workspace is, an id was a bare UUID
// and the provider kept a record of each workspace in
// <local_base_dir>/.workspaces/<uuid>.json. Such ids are still read, so
// that state written then keeps working: the record (only ever read now)
// says the kind and root, and a local root from then, which carries no
// marker, is accepted on the record's word. The workspace's state upgrade
// rewrites its id into the current form, and entries follow it in place;
// such a root stays recognised by its record for as long as the record is
// there.

type legacyRecord struct {
	Kind        string            `json:"kind"`
	Root        string            `json:"root"`
	Environment map[string]string `json:"environment,omitempty"`
}

func (e *Engine) legacyRecord(uuid string) (legacyRecord, bool) {
	data, err := os.ReadFile(filepath.Join(e.cfg.LocalBaseDir, ".workspaces", uuid+".json"))
	if err != nil {
		return legacyRecord{}, false
	}
	var rec legacyRecord
	if json.Unmarshal(data, &rec) != nil {
		return legacyRecord{}, false
	}
	return rec, true
}

// legacyRef resolves a bare UUID: by its record when there is one, else as
// the docker workspace labelled with it (the label was always set).
func (e *Engine) legacyRef(uuid string) Ref {
	rec, ok := e.legacyRecord(uuid)
	if ok && rec.Kind == local.Kind && filepath.IsAbs(rec.Root) {
		return Ref{Kind: local.Kind, UUID: uuid, Root: filepath.Clean(rec.Root)}
	}
	return Ref{Kind: docker.Kind, UUID: uuid}
}

// legacyRoot reports whether ref's root is the one its old record names: a
// root created before markers, which carries none.
func (e *Engine) legacyRoot(ref Ref) bool {
	rec, ok := e.legacyRecord(ref.UUID)
	return ok && rec.Kind == local.Kind && filepath.Clean(rec.Root) == ref.Root
}

func (e *Engine) legacyEnvironment(uuid string) map[string]string {
	rec, _ := e.legacyRecord(uuid)
	return rec.Environment
}

// readLocalMarker is local.ReadMarker with a missing directory reported as
// ErrNoMarker too.
func readLocalMarker(root string) (local.Marker, error) {
	m, err := local.ReadMarker(root)
	if errors.Is(err, fs.ErrNotExist) {
		return local.Marker{}, fmt.Errorf("%s: %w (it does not exist)", root, local.ErrNoMarker)
	}
	return m, err
}

// CheckLocalEnvironment refuses an environment too large for a local
// workspace's marker, which holds it (see local.MaxMarkerSize).
func CheckLocalEnvironment(env map[string]string) error {
	data, err := json.Marshal(local.Marker{ID: "00000000-0000-0000-0000-000000000000", Environment: env})
	if err != nil {
		return err
	}
	if len(data) > local.MaxMarkerSize {
		return fmt.Errorf("the environment of a local workspace is kept with its marker, which holds at most %d bytes of JSON; "+
			"this one needs %d: shorten it, or pass large values to commands through their own environment", local.MaxMarkerSize, len(data))
	}
	return nil
}
