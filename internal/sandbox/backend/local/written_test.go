//go:build linux

package local

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/digestcache"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/edits"
)

func sumOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// fineTimes reports whether files in dir get multigrain change times, the
// condition for recording written files.
func fineTimes(t *testing.T, dir string) bool {
	t.Helper()
	f, err := os.Open(dir) //nolint:gosec // a test directory
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	return digestcache.FineTimes(int(f.Fd()), digestcache.StatOf(&st))
}

// newKeepingWorkspace is a workspace made with KeepDigests and the digest
// cache directory it uses, of its own.
func newKeepingWorkspace(t *testing.T) (*Backend, string) {
	t.Helper()
	cache := t.TempDir()
	t.Setenv(digestcache.Env, cache)
	b := New(filepath.Join(t.TempDir(), "ws")).KeepDigests()
	if err := b.Create(bg); err != nil {
		t.Fatal(err)
	}
	return b, cache
}

// TestRememberWrittenTree: the files a batch wrote into a directory are
// recorded with their digests once RememberWritten runs, so the walk right
// after (no waiting out the cache's granularity) takes them from the cache
// (a planted digest comes back), and still sees every change made after the
// write at once: a same-size rewrite, one with its times put back, an inode
// swap. Where change times are coarse nothing is recorded and the walk
// hashes.
func TestRememberWrittenTree(t *testing.T) {
	b, cache := newKeepingWorkspace(t)
	content := map[string]string{"same": "same", "now": "aaaa", "back": "bbbb", "swap": "cccc"}
	var list []BatchItem
	for name, c := range content {
		list = append(list, BatchItem{Rel: "copy/" + name, Perm: 0o644, R: strings.NewReader(c)})
	}
	if _, err := b.WriteBatch(bg, items(list...)); err != nil {
		t.Fatal(err)
	}
	if err := b.Chmod(bg, "copy/same", 0o600); err != nil { // the provider's own metadata change after the write
		t.Fatal(err)
	}
	b.RememberWritten(bg, "copy")
	walk := func() map[string]string {
		files, err := b.WalkFiles(bg, "copy")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, f := range files {
			got[f.Rel] = f.SHA256
		}
		return got
	}
	if !fineTimes(t, b.Root()) {
		if files, _ := filepath.Glob(filepath.Join(cache, "*.json")); len(files) != 0 {
			t.Fatalf("coarse change times, yet written files were recorded: %v", files)
		}
		if got := walk(); got["same"] != sumOf("same") {
			t.Fatalf("walk = %v", got)
		}
		return
	}
	planted := strings.Repeat("0", 64)
	edits.PlantDigest(t, cache, "same", planted)
	if got := walk(); got["same"] != planted {
		t.Fatalf("the walk after the write hashed again: %v", got)
	}
	dir := filepath.Join(b.Root(), "copy")
	edits.Rewrite(t, filepath.Join(dir, "now"), "AAAA")
	edits.RewriteKeepTimes(t, filepath.Join(dir, "back"), "BBBB")
	edits.SwapInode(t, filepath.Join(dir, "swap"), "CCCC")
	got := walk()
	for name, c := range map[string]string{"now": "AAAA", "back": "BBBB", "swap": "CCCC"} {
		if got[name] != sumOf(c) {
			t.Errorf("%s: digest %s right after the edit, want the new content's", name, got[name])
		}
	}
}

// TestRememberWrittenFile: a single written file is recorded for HashFile,
// which then reads it only when it changed; a file changed between the
// write and RememberWritten is not recorded.
func TestRememberWrittenFile(t *testing.T) {
	b, cache := newKeepingWorkspace(t)
	if !fineTimes(t, b.Root()) {
		t.Log("coarse change times here: only the hashing path is checked")
	}
	for _, name := range []string{"kept.txt", "edited.txt"} {
		if _, err := b.WriteFile(bg, name, strings.NewReader("1234"), 0o644, ""); err != nil {
			t.Fatal(err)
		}
	}
	edits.Rewrite(t, filepath.Join(b.Root(), "edited.txt"), "5678")
	b.RememberWritten(bg, "kept.txt")
	b.RememberWritten(bg, "edited.txt")
	if sum, _, err := b.HashFile(bg, "edited.txt"); err != nil || sum != sumOf("5678") {
		t.Fatalf("HashFile(edited) = %s, %v: the edit before RememberWritten was missed", sum, err)
	}
	if !fineTimes(t, b.Root()) {
		return
	}
	planted := strings.Repeat("0", 64)
	edits.PlantDigest(t, cache, "", planted) // every single-file cache
	if sum, _, err := b.HashFile(bg, "kept.txt"); err != nil || sum != planted {
		t.Fatalf("HashFile(kept) = %s, %v: want the recorded digest", sum, err)
	}
	edits.RewriteKeepTimes(t, filepath.Join(b.Root(), "kept.txt"), "abcd")
	if sum, _, err := b.HashFile(bg, "kept.txt"); err != nil || sum != sumOf("abcd") {
		t.Fatalf("HashFile after an edit = %s, %v", sum, err)
	}
}

// TestHashFileDigestCache: HashFile of a workspace made with KeepDigests
// takes an unchanged file's digest from the cache once its times are older
// than the cache's granularity, and hashes a changed one.
func TestHashFileDigestCache(t *testing.T) {
	b, cache := newKeepingWorkspace(t)
	p := filepath.Join(b.Root(), "f.txt")
	if err := os.WriteFile(p, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	edits.Settle(digestcache.Granularity)
	if sum, _, err := b.HashFile(bg, "f.txt"); err != nil || sum != sumOf("data") {
		t.Fatalf("HashFile = %s, %v", sum, err)
	}
	planted := strings.Repeat("0", 64)
	edits.PlantDigest(t, cache, "", planted)
	if sum, _, _ := b.HashFile(bg, "f.txt"); sum != planted {
		t.Fatalf("the second HashFile did not use the cache: %s", sum)
	}
	edits.RewriteKeepTimes(t, p, "DATA")
	if sum, _, _ := b.HashFile(bg, "f.txt"); sum != sumOf("DATA") {
		t.Fatalf("HashFile after an edit = %s", sum)
	}
	// Without KeepDigests (a helper inside a container) nothing is cached.
	plain := New(b.Root())
	if err := os.RemoveAll(cache); err != nil {
		t.Fatal(err)
	}
	if _, _, err := plain.HashFile(bg, "f.txt"); err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(cache, "*.json")); len(files) != 0 {
		t.Fatalf("a backend without KeepDigests cached %v", files)
	}
}
