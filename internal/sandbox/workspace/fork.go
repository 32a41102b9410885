package workspace

import (
	"context"
	"fmt"
	"slices"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/local"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/snapshot"
)

// ForkFrom fills the just-created local workspace w with a copy of the
// current tree of the local workspace srcID, without an archive: the
// members a snapshot of it would hold (its ephemeral entries, the mount
// patterns' session directories and its mounts left out), checked by a
// restore's rules and bounded by l, files cloned (FICLONE) where the
// filesystem can, else copied with copy_file_range, else streamed.
func (w *Workspace) ForkFrom(ctx context.Context, srcID string, l sandbox.OutputLimits) (snapshot.ForkSummary, error) {
	if w.Kind != local.Kind {
		return snapshot.ForkSummary{}, fmt.Errorf("workspace %s is not local: only a local workspace is forked from another; "+
			"restore other kinds from a snapshot archive (path or url)", w.ID)
	}
	src, err := w.eng.Open(ctx, srcID)
	if err != nil {
		return snapshot.ForkSummary{}, fmt.Errorf("the workspace to fork: %w", err)
	}
	if src.Kind != local.Kind {
		return snapshot.ForkSummary{}, fmt.Errorf("workspace %s is not local: only a local workspace can be forked; "+
			"take a sandbox_snapshot of it and restore from its archive", src.ID)
	}
	if src.Root == w.Root {
		return snapshot.ForkSummary{}, fmt.Errorf("a workspace cannot be forked into itself (%s)", w.Root)
	}
	ephemeral, err := src.EphemeralPaths(ctx)
	if err != nil {
		return snapshot.ForkSummary{}, err
	}
	points, err := local.MountPoints(src.Root)
	if err != nil {
		return snapshot.ForkSummary{}, err
	}
	sum, err := snapshot.Fork(ctx, src.Root, w.Root, slices.Concat(ephemeral, sessionDirParents), points, l)
	if err != nil {
		return sum, fmt.Errorf("fork of workspace %s into %s: %w", src.ID, w.ID, err)
	}
	return sum, nil
}
