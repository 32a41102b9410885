package workspace

import (
	"context"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

// applyProgress is what one ApplyManifest did, by index into the plan's
// entries: the entries it started and finished, and the last apply's
// mounts it unmounted as stale (by entry path).
type applyProgress struct {
	begun, done map[int]bool
	gone        map[string]bool
}

func (a *applyProgress) started(i int) {
	if a.begun == nil {
		a.begun = map[int]bool{}
	}
	a.begun[i] = true
}

func (a *applyProgress) completed(i int) {
	if a.done == nil {
		a.done = map[int]bool{}
	}
	a.done[i] = true
}

func (a *applyProgress) unmounted(rel string) {
	if a.gone == nil {
		a.gone = map[string]bool{}
	}
	a.gone[rel] = true
}

// UndoManifest removes what a failed ApplyManifest of p wrote, for a
// manifest that was not applied to the workspace before (a failed create,
// which no state records): the mounts it made are unmounted first
// (UnmountManifest), then the files of the entries it finished are removed
// and the directories of the entries it started, each only when empty
// (RemoveManifest), a mount point only when nothing is mounted there. The files of the entry that failed are not removed: a
// file is written atomically and a failed mount removes itself, so only a
// copy can have written part of its tree, over what may have been there
// before. The returned warnings name directories left in place.
func (w *Workspace) UndoManifest(ctx context.Context, p *ManifestPlan) ([]string, error) {
	if err := w.UnmountManifest(ctx, p.MountApplied()); err != nil {
		return nil, err
	}
	var entries []PlannedEntry
	written := map[string]string{}
	for i, pe := range p.Entries {
		if p.progress.begun[i] {
			if pe.Mount != nil {
				// A mount point stays only when something else is mounted
				// there (ApplyMount refused it): never remove below it.
				if listed, err := w.mountListed(ctx, pe); err != nil || listed {
					continue
				}
			}
			entries = append(entries, pe)
		}
		if p.progress.done[i] {
			pe.addFiles(written)
		}
	}
	return w.RemoveManifest(ctx, entries, sortedKeys(written))
}

func (w *Workspace) mountListed(ctx context.Context, pe PlannedEntry) (bool, error) {
	mp, err := ResolveMountPath(w.Root, pe.Path, pe.Mount)
	if err != nil {
		return false, err
	}
	st, err := w.eng.MountStatus(ctx, w.ID, mp)
	return st.Listed, err
}

// RecordedMountEntries returns the recorded mounts whose paths are not
// among entries, as entries (unplanned), so that RemoveManifest, after
// UnmountManifest, removes their mount points too: a failed update records
// the mounts it made, which the manifest in state does not have.
func RecordedMountEntries(applied map[string]MountApplied, entries []PlannedEntry) []PlannedEntry {
	var out []PlannedEntry
	for _, rel := range sortedKeys(applied) {
		if isEntryPath(entries, rel) {
			continue
		}
		e, err := manifest.ParseEntry([]byte(applied[rel].Entry))
		if err != nil {
			continue // UnmountManifest refused it already
		}
		m, err := mount.DecodeJSON([]byte(applied[rel].Entry))
		if err != nil {
			continue
		}
		out = append(out, PlannedEntry{Path: rel, Entry: e, Mount: m})
	}
	return out
}
