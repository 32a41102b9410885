//go:build linux

package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/digestcache"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/edits"
)

// TestCopiesAreRememberedForTheNextRead: a local_dir copy and a file write
// record the digests they wrote, so reading them back right after (the
// next plan) takes a planted digest from the cache instead of hashing; an
// edit made after the copy is still seen.
func TestCopiesAreRememberedForTheNextRead(t *testing.T) {
	cache := t.TempDir()
	t.Setenv(digestcache.Env, cache)
	eng, wd := newEngine(t)
	ctx := context.Background()
	w, err := eng.CreateLocal(ctx, LocalSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(wd, "tree"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(wd, "tree", name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tree, err := eng.ScanLocalDir(ctx, w.ID, "tree")
	if err != nil {
		t.Fatal(err)
	}
	planned := SummarizeCopy(tree, Meta{FilePerm: SDKCopiedFilePerm})
	if _, err := w.SyncLocalDir(ctx, "copy", "tree", Meta{Perm: 0o755, FilePerm: SDKCopiedFilePerm}, &planned); err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteFile(ctx, "one.txt", strings.NewReader("one"), Meta{Perm: 0o600}, ""); err != nil {
		t.Fatal(err)
	}
	planted := strings.Repeat("0", 64)
	edits.PlantDigest(t, cache, "a.txt", planted)
	edits.PlantDigest(t, cache, "", planted)
	edits.Rewrite(t, filepath.Join(w.Root, "copy", "b.txt"), "B.TXT")
	sum := sha256.Sum256([]byte("B.TXT"))
	st, err := w.ReadTree(ctx, "copy")
	if err != nil {
		t.Fatal(err)
	}
	if st.Tree.Files["a.txt"] != planted || st.Tree.Files["b.txt"] != hex.EncodeToString(sum[:]) {
		t.Fatalf("read after the copy: %v", st.Tree.Files)
	}
	if fs, err := w.Stat(ctx, "one.txt", true); err != nil || fs.SHA256 != planted {
		t.Fatalf("read after the write: %+v %v", fs, err)
	}
}
