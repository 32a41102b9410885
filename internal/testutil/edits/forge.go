package edits

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// ForgeEntries rewrites every entry of the digest cache files in dir as a
// root agent in a container would: the stat of path as it is now, hashed
// long after its last change, and digest as its value. The seal stays as it
// was: the agent does not hold the key.
func ForgeEntries(t testing.TB, dir, path, digest string) {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		t.Fatalf("no cache file in %s", dir)
	}
	for _, p := range files {
		b, err := os.ReadFile(p) //nolint:gosec // a test fixture
		if err != nil {
			t.Fatal(err)
		}
		var f map[string]any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&f); err != nil {
			t.Fatal(err)
		}
		entries, _ := f["entries"].(map[string]any)
		for _, v := range entries {
			e, ok := v.(map[string]any)
			if !ok {
				continue
			}
			ctime := st.Ctim.Nano()
			e["Dev"], e["Ino"], e["Size"] = st.Dev, st.Ino, st.Size
			e["MtimeNs"], e["CtimeNs"], e["h"] = st.Mtim.Nano(), ctime, ctime+10_000_000_000
			e["v"] = digest
		}
		out, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, out, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
