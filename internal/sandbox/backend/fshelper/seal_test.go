//go:build linux

package fshelper

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/digestcache"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/edits"
)

// The digest cache of a helper run with a seal key keeps only entries
// sealed under that key: an entry forged by whoever can write the cache
// (the container's root) is ignored and the file hashed, while the same
// entry sealed with the key is used; with no key the helper keeps no cache.
func TestMain_sealedDigestCache(t *testing.T) {
	root := filepath.Join(t.TempDir(), "ws")
	cache := t.TempDir()
	t.Setenv(digestcache.Env, cache)
	key := bytes.Repeat([]byte{7}, digestcache.KeySize)
	f := filepath.Join(root, "grade.sh")
	call(t, nil, OpInit, root, ".")
	if err := os.WriteFile(f, []byte("exit 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hash := func(k []byte) string {
		t.Helper()
		return callSealed(t, k, nil, OpHash, root, "grade.sh").SHA256
	}
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	if got := hash(key); got != sum("exit 1\n") {
		t.Fatalf("first hash %s", got)
	}
	// The agent swaps the grader and plants the old digest for its stat.
	if err := os.WriteFile(f, []byte("exit 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	edits.ForgeEntries(t, cache, f, sum("exit 1\n"))
	if got := hash(key); got != sum("exit 0\n") {
		t.Fatalf("a forged entry was trusted: hash %s, want the file's own %s", got, sum("exit 0\n"))
	}
	// Sealed with the key, the same entry is used: the cache is in play.
	edits.ForgeEntries(t, cache, f, sum("exit 1\n"))
	if err := digestcache.Reseal(cache, key); err != nil {
		t.Fatal(err)
	}
	if got := hash(key); got != sum("exit 1\n") {
		t.Fatalf("a sealed entry was not used: hash %s", got)
	}
	// Sealed under another key, it is not.
	if got := hash(bytes.Repeat([]byte{8}, digestcache.KeySize)); got != sum("exit 0\n") {
		t.Fatalf("an entry sealed under another key was trusted: %s", got)
	}
	// No key: no cache at all, nothing trusted, nothing written.
	if err := os.RemoveAll(cache); err != nil {
		t.Fatal(err)
	}
	if got := hash(nil); got != sum("exit 0\n") {
		t.Fatalf("hash without key %s", got)
	}
	if _, err := os.Stat(cache); !os.IsNotExist(err) {
		t.Fatalf("a helper without key wrote its cache: %v", err)
	}
	// A missing or malformed seal line is a usage error.
	for _, in := range []string{"", "short\n", strings.Repeat("z", 64) + "\n"} {
		var out, errOut bytes.Buffer
		if code := Main([]string{OpHash, root, "grade.sh"}, strings.NewReader(in), &out, &errOut); code != 2 {
			t.Errorf("seal line %q: exit %d, want 2 (%s)", in, code, errOut.String())
		}
	}
}
