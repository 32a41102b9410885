//go:build linux

package local

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/edits"
)

// TestWalkFilesDigestCache: WalkFiles takes an unchanged file's digest
// from the cache, and sees a same-size rewrite, a rewrite with its
// modification time put back, and an inode swap inside the workspace.
func TestWalkFilesDigestCache(t *testing.T) {
	b := newWorkspace(t)
	edits.CheckCache(t, filepath.Join(b.Root(), "copy"), func() map[string]string {
		files, err := b.WalkFiles(context.Background(), "copy")
		if err != nil {
			t.Fatal(err)
		}
		sums := map[string]string{}
		for _, f := range files {
			sums[f.Rel] = f.SHA256
		}
		return sums
	})
}
