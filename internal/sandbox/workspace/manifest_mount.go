package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/google/uuid"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

// Mount entries of a manifest (design/sdk-model.md §5): planned from the
// entry's JSON plus write-only credentials keyed by entry path, applied,
// observed and removed through the same ApplyMount, MountStatus and
// UnmountMount as the mount resources. A mount entry writes no file and is
// ephemeral, as in the Python SDK: it is never part of a snapshot.

// MountApplied is one mount entry as the last apply mounted it: what
// removing it needs, none of it secret.
type MountApplied struct {
	// SessionID names the mount's generated files and helper directories.
	SessionID string `json:"session_id"`
	// RemoteName is the rclone remote the apply generated (it can depend on
	// the credentials, which removal does not have).
	RemoteName string `json:"remote_name,omitempty"`
	// Entry is the entry's JSON, with no authority in it.
	Entry string `json:"entry"`
	// Version is the credentials version the mount was made with.
	Version string `json:"version,omitempty"`
}

// MountSecretFields returns the fields of mount type typ that hold a
// secret: its authority fields less those naming a credential file. They
// are given as write-only credentials, never in the manifest's JSON.
func MountSecretFields(typ string) []string {
	files := map[string]bool{"service_account_file": true, "box_config_file": true}
	var out []string
	for _, f := range mount.AuthorityFields(typ) {
		if !files[f] {
			out = append(out, f)
		}
	}
	return out
}

// checkMountEntry decodes a mount entry and checks what needs no workspace:
// no secret in the JSON (it would be stored in plain text), the Python
// SDK's field and strategy rules, and a mount path that is not the root.
func checkMountEntry(rel string, e *manifest.Entry) (*mount.Mount, error) {
	var set []string
	for _, f := range MountSecretFields(e.Type) {
		if _, ok := e.StringField(f); ok {
			set = append(set, f)
		}
	}
	if len(set) > 0 {
		return nil, &EntryError{Path: rel, Err: fmt.Errorf("sets %s in the manifest's JSON, which is stored in plain "+
			"text: remove it there and give it as a write-only credential of this entry", strings.Join(set, ", "))}
	}
	raw, err := e.JSON()
	if err != nil {
		return nil, err
	}
	m, err := mount.DecodeJSON(raw)
	if err == nil {
		err = m.Validate()
	}
	if err != nil {
		return nil, &EntryError{Path: rel, Err: err}
	}
	target, err := ResolveMountPath(DefaultDockerRoot, rel, m)
	if err != nil {
		return nil, &EntryError{Path: rel, Err: err}
	}
	if target == DefaultDockerRoot {
		return nil, &EntryError{Path: rel, Err: fmt.Errorf("the mount path resolves to the workspace root itself: " +
			"mounting over it would hide the whole workspace; mount below it")}
	}
	return m, nil
}

// planMount gives a planned mount entry its credentials and, when the last
// apply mounted the same entry with the same credentials version, its
// session.
func planMount(pe *PlannedEntry, in ManifestInputs) error {
	raw, err := pe.Entry.JSON()
	if err != nil {
		return err
	}
	pe.MountEntry = string(raw)
	creds := in.MountCredentials[pe.Path]
	if len(creds) > 0 {
		allowed := MountSecretFields(pe.Entry.Type)
		obj := map[string]any{}
		if err := json.Unmarshal(raw, &obj); err != nil {
			return err
		}
		for _, k := range sortedKeys(creds) {
			if !slices.Contains(allowed, k) {
				return fmt.Errorf("credential %s is not one of %s's (%s)", k, pe.Entry.Type, strings.Join(allowed, ", "))
			}
			obj[k] = creds[k]
		}
		if raw, err = json.Marshal(obj); err != nil {
			return err
		}
		m, err := mount.DecodeJSON(raw)
		if err == nil {
			err = m.Validate()
		}
		if err != nil {
			return mount.Redact(err, mount.Secrets(m))
		}
		pe.Mount = m
	}
	if prior, ok := in.MountApplied[pe.Path]; ok && prior.Entry == pe.MountEntry && prior.Version == in.CredentialsVersion {
		pe.MountSession = prior.SessionID
	}
	pe.MountVersion = in.CredentialsVersion
	return nil
}

// applyMounts unmounts what the last apply mounted and this plan does not
// keep, then mounts every mount entry not mounted already.
func (w *Workspace) applyMounts(ctx context.Context, p *ManifestPlan) error {
	keep := map[string]bool{}
	for _, pe := range p.Entries {
		if pe.Mount != nil && pe.MountSession != "" {
			keep[pe.Path] = true
		}
	}
	stale := map[string]MountApplied{}
	for rel, prior := range p.MountPrior {
		if !keep[rel] {
			stale[rel] = prior
		}
	}
	for _, rel := range sortedKeys(stale) {
		// One at a time, so that a failure leaves the rest recorded
		// (MountApplied).
		if err := w.UnmountManifest(ctx, map[string]MountApplied{rel: stale[rel]}); err != nil {
			return err
		}
		p.progress.unmounted(rel)
	}
	for i := range p.Entries {
		pe := &p.Entries[i]
		if pe.Mount == nil {
			continue
		}
		p.progress.started(i)
		if err := w.applyMount(ctx, pe, p.MountPrior[pe.Path]); err != nil {
			return &EntryError{Path: pe.Path, Type: pe.Entry.Type, Err: err}
		}
		p.progress.completed(i)
	}
	return nil
}

func (w *Workspace) applyMount(ctx context.Context, pe *PlannedEntry, prior MountApplied) error {
	if pe.MountSession != "" {
		mp, err := ResolveMountPath(w.Root, pe.Path, pe.Mount)
		if err != nil {
			return err
		}
		st, err := w.eng.MountStatus(ctx, w.ID, mp)
		if err != nil {
			return err
		}
		if st.Listed && st.Healthy {
			pe.MountRemote = prior.RemoteName
			return nil // mounted by the last apply, and still answering
		}
		// Gone or dead (its helper died): remove what is left, mount again.
		if err := w.UnmountManifest(ctx, map[string]MountApplied{pe.Path: prior}); err != nil {
			return err
		}
	}
	pe.MountSession = strings.ReplaceAll(uuid.NewString(), "-", "")
	res, err := w.eng.ApplyMount(ctx, MountRequest{WorkspaceID: w.ID, Path: pe.Path, Mount: pe.Mount, SessionID: pe.MountSession})
	if err != nil {
		var left *MountLeftError
		if errors.As(err, &left) {
			// Removing the failed mount left something: it stays
			// recorded (MountApplied), so that the undo of a failed
			// create, or the next apply or destroy, removes it again.
			pe.MountRemote = res.Applied.RemoteName
			return err
		}
		pe.MountSession = ""
		return err
	}
	pe.MountRemote = res.Applied.RemoteName
	return nil
}

// UnmountManifest unmounts the mounts an apply recorded, by entry path,
// each as UnmountMount does (its helper stopped, its generated files
// removed). A mount that is gone already is not an error.
func (w *Workspace) UnmountManifest(ctx context.Context, applied map[string]MountApplied) error {
	for _, rel := range sortedKeys(applied) {
		a := applied[rel]
		m, err := mount.DecodeJSON([]byte(a.Entry))
		if err != nil {
			return &EntryError{Path: rel, Err: err}
		}
		if a.RemoteName != "" && m.Strategy.Pattern != nil && m.Strategy.Pattern.Rclone != nil &&
			m.Strategy.Pattern.Rclone.RemoteName == nil {
			name := a.RemoteName
			m.Strategy.Pattern.Rclone.RemoteName = &name
		}
		if err := w.eng.UnmountMount(ctx, MountRequest{WorkspaceID: w.ID, Path: rel, Mount: m, SessionID: a.SessionID}); err != nil {
			return &EntryError{Path: rel, Type: m.Type, Err: err}
		}
	}
	return nil
}

// MountApplied returns what is mounted after ApplyManifest, by entry path:
// the plan's mount entries it mounted or kept and, after a failed apply,
// the last apply's mounts it did not get to unmount.
func (p *ManifestPlan) MountApplied() map[string]MountApplied {
	out := map[string]MountApplied{}
	for rel, prior := range p.MountPrior {
		if !p.progress.gone[rel] {
			out[rel] = prior
		}
	}
	for _, pe := range p.Entries {
		if pe.Mount != nil && pe.MountSession != "" {
			out[pe.Path] = MountApplied{SessionID: pe.MountSession, RemoteName: pe.MountRemote, Entry: pe.MountEntry,
				Version: pe.MountVersion}
		}
	}
	return out
}

// readMount observes a mount entry: whether a healthy filesystem is
// mounted at its path.
func (w *Workspace) readMount(ctx context.Context, pe PlannedEntry) (EntryResult, error) {
	mp, err := ResolveMountPath(w.Root, pe.Path, pe.Mount)
	if err != nil {
		return EntryResult{}, err
	}
	active, err := w.eng.MountActive(ctx, w.ID, mp)
	return EntryResult{Type: pe.Entry.Type, IsMount: true, Mounted: active}, err
}

// checkInsideMounts refuses entries inside a mount entry's path: the mount
// would hide them (and ApplyMount refuses a directory with content).
func checkInsideMounts(entries []PlannedEntry) error {
	for _, m := range entries {
		if m.Mount == nil {
			continue
		}
		for _, pe := range entries {
			if pe.Path != m.Path && (m.Path == "." || strings.HasPrefix(pe.Path, m.Path+"/")) {
				return fmt.Errorf("entry %q lies inside %s entry %q: the mount would hide it; put it elsewhere",
					pe.Path, m.Entry.Type, m.Path)
			}
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
