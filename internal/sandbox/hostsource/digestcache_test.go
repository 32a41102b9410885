//go:build linux

package hostsource

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/digestcache"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/edits"
)

// TestScanDirDigestCache: a second scan takes unchanged files' digests
// from the cache, and sees each edit a stat-keyed cache could miss; with
// the cache deleted, the digests are the same.
func TestScanDirDigestCache(t *testing.T) {
	base := t.TempDir()
	p := Policy{BaseDir: base}
	scan := func() map[string]string {
		td, err := p.ScanDir(context.Background(), "src")
		if err != nil {
			t.Fatal(err)
		}
		sums := map[string]string{}
		for _, f := range td.Files {
			sums[f.Rel] = f.SHA256
		}
		return sums
	}
	cache := edits.CheckCache(t, filepath.Join(base, "src"), scan)
	if err := os.RemoveAll(cache); err != nil {
		t.Fatal(err)
	}
	if got := scan(); got["same"] != sha256Hex("same") || got["now"] != sha256Hex("AAAA") {
		t.Fatalf("without the cache: %v", got)
	}
}

// TestDigestFileDigestCache is the same for a single host file.
func TestDigestFileDigestCache(t *testing.T) {
	cache := t.TempDir()
	t.Setenv(digestcache.Env, cache)
	base := t.TempDir()
	path := filepath.Join(base, "f.txt")
	if err := os.WriteFile(path, []byte("one1"), 0o644); err != nil {
		t.Fatal(err)
	}
	edits.Settle(digestcache.Granularity)
	p := Policy{BaseDir: base}
	digest := func() string {
		t.Helper()
		_, d, err := p.DigestFile(context.Background(), "f.txt")
		if err != nil {
			t.Fatal(err)
		}
		return d.SHA256
	}
	if got := digest(); got != sha256Hex("one1") {
		t.Fatalf("first digest %s", got)
	}
	for _, edit := range []struct {
		name    string
		do      func(testing.TB, string, string)
		content string
	}{{"rewrite", edits.Rewrite, "two2"}, {"times put back", edits.RewriteKeepTimes, "thr3"}, {"inode swap", edits.SwapInode, "fou4"}} {
		edits.Settle(digestcache.Granularity)
		if got := digest(); got == "" { // the entry is now trusted
			t.Fatal("no digest")
		}
		edit.do(t, path, edit.content)
		if got := digest(); got != sha256Hex(edit.content) {
			t.Errorf("%s: digest %s, want %s", edit.name, got, sha256Hex(edit.content))
		}
	}
}
