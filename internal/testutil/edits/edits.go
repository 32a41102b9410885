// Package edits changes files in the ways a stat-keyed digest cache must
// notice: content rewritten at once (in the second it was hashed), content
// changed with its size and modification time put back (touch -d), and
// the file replaced by another inode with the same size and times.
package edits

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/digestcache"
)

// Rewrite overwrites path in place with content (give it the old size).
func Rewrite(t testing.TB, path, content string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0) //nolint:gosec // a test fixture
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// RewriteKeepTimes is Rewrite followed by putting path's access and
// modification times back, as `touch -d` would: only the change time moves.
func RewriteKeepTimes(t testing.TB, path, content string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	Rewrite(t, path, content)
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// SwapInode replaces path by a new file holding content (give it the old
// size) with path's mode and modification time, renamed over it.
func SwapInode(t testing.TB, path, content string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(filepath.Dir(path), ".swap-"+filepath.Base(path))
	if err := os.WriteFile(tmp, []byte(content), fi.Mode().Perm()); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tmp, fi.Mode().Perm()); err != nil { // whatever the umask
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// Settle waits out the digest cache's timestamp granularity (given), so
// that files written before the call and hashed after it are trusted by
// the cache: without it, every entry would be racily clean and re-hashed,
// and a test of the cache would pass without the cache doing anything.
func Settle(granularity time.Duration) {
	time.Sleep(granularity + 100*time.Millisecond)
}

// PlantDigest replaces the digest the cache files in dir hold for name
// (the cache's JSON format: {"entries": {name: {"v": digest, ...}}}), so a
// test can tell a digest that came from the cache from one computed again.
// It fails the test when no cache file holds name.
func PlantDigest(t testing.TB, dir, name, digest string) {
	t.Helper()
	if !plant(t, dir, digest, func(n string, _ map[string]any) bool { return n == name }) {
		t.Fatalf("no cache file in %s holds %s", dir, name)
	}
}

// PlantFileDigest is PlantDigest for the single-file cache of path (seen
// by the test; its entry is named "" and found by path's inode).
func PlantFileDigest(t testing.TB, dir, path, digest string) {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	ino := strconv.FormatUint(st.Ino, 10)
	if !plant(t, dir, digest, func(n string, e map[string]any) bool {
		v, ok := e["Ino"].(json.Number)
		return n == "" && ok && v.String() == ino
	}) {
		t.Fatalf("no cache file in %s holds the digest of %s", dir, path)
	}
}

// plant sets the digest of the entries match selects in the cache files in
// dir and reports whether there was one.
func plant(t testing.TB, dir, digest string, match func(name string, e map[string]any) bool) bool {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	planted, sealed := false, false
	for _, p := range files {
		b, err := os.ReadFile(p) //nolint:gosec // a test fixture
		if err != nil {
			t.Fatal(err)
		}
		var f map[string]any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber() // nanosecond times do not survive float64
		if err := dec.Decode(&f); err != nil {
			t.Fatal(err)
		}
		entries, _ := f["entries"].(map[string]any)
		hit := false
		for name, v := range entries {
			if e, ok := v.(map[string]any); ok && match(name, e) {
				e["v"], hit = digest, true
				if _, ok := e["m"]; ok {
					sealed = true
				}
			}
		}
		if !hit {
			continue
		}
		if b, err = json.Marshal(f); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		planted = true
	}
	if sealed {
		// A sealed cache (in a container) takes the planted digest only
		// under the provider's key, as if the provider had stored it.
		if err := digestcache.Reseal(dir, digestcache.HostKey()); err != nil {
			t.Fatal(err)
		}
	}
	return planted
}

// CheckCache runs the digest cache scenario on dir with a cache of its own
// (returned): it writes four files, waits out the cache's granularity, and
// checks that digests (what the code under test computes for dir, by file
// name) takes an unchanged file's digest from the cache (a planted digest
// comes back) and sees a same-size rewrite, a rewrite with its times put
// back, and an inode swap.
func CheckCache(t *testing.T, dir string, digests func() map[string]string) (cacheDir string) {
	t.Helper()
	cacheDir = t.TempDir()
	t.Setenv(digestcache.Env, cacheDir)
	CheckCacheIn(t, dir, cacheDir, digests)
	return cacheDir
}

// CheckCacheIn is CheckCache for code whose cache lives in cacheDir
// already (the file helper's, inside a container, seen from the host).
func CheckCacheIn(t *testing.T, dir, cacheDir string, digests func() map[string]string) {
	t.Helper()
	checkCache(t, dir, digests, func(name, digest string) { PlantDigest(t, cacheDir, name, digest) })
}

// CheckFileCacheIn is CheckCacheIn for code that caches each file of dir
// in a scope of its own (a single file's digest, HashFile).
func CheckFileCacheIn(t *testing.T, dir, cacheDir string, digests func() map[string]string) {
	t.Helper()
	checkCache(t, dir, digests, func(name, digest string) { PlantFileDigest(t, cacheDir, filepath.Join(dir, name), digest) })
}

// checkCache is the scenario of CheckCache; plant replaces the cached
// digest of a file of dir.
func checkCache(t *testing.T, dir string, digests func() map[string]string, plant func(name, digest string)) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]string{"same": "same", "now": "aaaa", "back": "bbbb", "swap": "cccc"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	Settle(digestcache.Granularity)
	digests()
	planted := strings.Repeat("0", 64)
	plant("same", planted)
	if got := digests(); got["same"] != planted {
		t.Fatalf("the second pass did not use the cache: %v", got)
	}
	Rewrite(t, filepath.Join(dir, "now"), "AAAA")
	RewriteKeepTimes(t, filepath.Join(dir, "back"), "BBBB")
	SwapInode(t, filepath.Join(dir, "swap"), "CCCC")
	got := digests()
	for name, c := range map[string]string{"now": "AAAA", "back": "BBBB", "swap": "CCCC"} {
		if sum := sha256.Sum256([]byte(c)); got[name] != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: digest %s after the edit, want the new content's", name, got[name])
		}
	}
}
