//go:build linux

package hostsource

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/checksum"
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

// TestDigestFileWithCachedSet: DigestFile reads SHA-256 alone; asking for
// more reads the file again, once, and the cache then answers both sets
// without reading (the bytes hashed do not move).
func TestDigestFileWithCachedSet(t *testing.T) {
	t.Setenv(digestcache.Env, t.TempDir())
	base := t.TempDir()
	const body = "digest me\n"
	if err := os.WriteFile(filepath.Join(base, "f.txt"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	edits.Settle(digestcache.Granularity)
	p := Policy{BaseDir: base}
	all := checksum.DigestBytes([]byte(body))
	step := func(name string, want checksum.DigestSet, expect checksum.FileDigest, read bool) {
		t.Helper()
		before := checksum.Hashed()
		_, d, err := p.DigestFileWith(context.Background(), "f.txt", want)
		if err != nil {
			t.Fatal(err)
		}
		after := checksum.Hashed()
		if d != expect {
			t.Errorf("%s: %+v, want %+v", name, d, expect)
		}
		extra := int64(0)
		if read && want != 0 {
			extra = int64(len(body))
		}
		if got := after.SHA256 - before.SHA256; (got != 0) != read || (read && got != int64(len(body))) {
			t.Errorf("%s: SHA-256 hashed %d bytes (read: %v)", name, got, read)
		}
		if after.MD5-before.MD5 != extra || after.SHA1-before.SHA1 != extra || after.SHA512-before.SHA512 != extra {
			t.Errorf("%s: MD5, SHA-1, SHA-512 hashed %d, %d, %d bytes, want %d each", name,
				after.MD5-before.MD5, after.SHA1-before.SHA1, after.SHA512-before.SHA512, extra)
		}
	}
	sha256Only := checksum.FileDigest{Size: all.Size, SHA256: all.SHA256, Base64SHA256: all.Base64SHA256}
	step("SHA-256, fresh", 0, sha256Only, true)
	step("SHA-256, cached", 0, sha256Only, false)
	step("every digest, not cached yet", checksum.AllDigests, all, true)
	step("every digest, cached", checksum.AllDigests, all, false)
	step("SHA-256 after every digest", 0, all, false)
}
