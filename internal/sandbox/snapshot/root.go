package snapshot

import (
	"context"
	"io"
)

// PersistRoot persists root as a workspace: exclude are the caller's
// workspace-relative skip paths (ephemeral entries), mountPoints the
// absolute mount points the mount table lists. An excluded path that
// overlaps a mount path is refused before anything is written.
func PersistRoot(ctx context.Context, root string, exclude, mountPoints []string, manifestDigest string, w io.Writer) (Summary, error) {
	skip := SkipPaths{Excluded: exclude, Mounts: MountsUnder(root, mountPoints)}
	if err := skip.Check(); err != nil {
		return Summary{}, err
	}
	return Persist(ctx, root, skip.All(), manifestDigest, w)
}
