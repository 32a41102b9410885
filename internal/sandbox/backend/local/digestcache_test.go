//go:build linux

package local

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/digestcache"
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

// TestHashFileCacheSeesEdits: HashFile of a backend made with
// CacheFileDigests (the file helper's, which records no writes) takes an
// unchanged file's digest from its single-file cache, and sees the same
// three edits; the rewrite lands in the same second as the cache write.
func TestHashFileCacheSeesEdits(t *testing.T) {
	cache := t.TempDir()
	t.Setenv(digestcache.Env, cache)
	b := newWorkspace(t).CacheFileDigests()
	dir := filepath.Join(b.Root(), "copy")
	edits.CheckFileCacheIn(t, dir, cache, func() map[string]string {
		sums := map[string]string{}
		for _, name := range []string{"same", "now", "back", "swap"} {
			sum, _, err := b.HashFile(context.Background(), "copy/"+name)
			if err != nil {
				t.Fatal(err)
			}
			sums[name] = sum
		}
		return sums
	})
}
