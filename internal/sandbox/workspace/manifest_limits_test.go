package workspace

import (
	"strings"
	"testing"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
)

func TestManifestLimits(t *testing.T) {
	deep := `{"type":"file","content":"x"}`
	for range 2000 {
		deep = `{"type":"dir","children":{"d":` + deep + `}}`
	}
	start := time.Now()
	err := CheckManifestSize([]byte(`{"version":1,"entries":{"top":` + deep + `}}`))
	if err == nil || !strings.Contains(err.Error(), "nested more than 128 levels") {
		t.Errorf("a 2,000-level manifest: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("refusing a deep manifest took %v", d)
	}
	if err := CheckManifestSize(make([]byte, MaxManifestBytes+1)); err == nil || !strings.Contains(err.Error(), "limited to 4194304 bytes") {
		t.Errorf("an oversized manifest: %v", err)
	}
	if err := CheckManifestSize([]byte(`{"version":1,"entries":{"a":{"type":"dir"}}}`)); err != nil {
		t.Errorf("a small manifest: %v", err)
	}

	entries := func(specs ...string) []PlannedEntry {
		var out []PlannedEntry
		for _, s := range specs {
			typ, p, _ := strings.Cut(s, ":")
			out = append(out, PlannedEntry{Path: p, Entry: &manifest.Entry{Type: typ}})
		}
		return out
	}
	for _, c := range []struct {
		entries []PlannedEntry
		want    string
	}{
		{entries("dir:a", "file:a/b", "local_file:a/c"), ""},
		{entries("file:a", "dir:a/b"), `entry "a/b" lies below "a"`},
		{entries("local_file:x/y", "file:x/y/z/w"), `entry "x/y/z/w" lies below "x/y"`},
		{make([]PlannedEntry, MaxManifestEntries+1), "limited to 5000 entries"},
	} {
		err := checkPlannedEntries(c.entries)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("checkPlannedEntries(%d entries) = %v, want %q", len(c.entries), err, c.want)
		}
	}
	// Names the filesystem refuses are CheckManifest's, through the rule
	// every surface shares (manifest.Entries.CheckedEntries).
	for key, want := range map[string]string{
		`a\u0000b`:               `path "a\x00b" contains a NUL byte`,
		strings.Repeat("n", 256): "file names are limited to 255 bytes",
		"":                       `path "." names the workspace root itself`,
	} {
		m, err := manifest.Parse([]byte(`{"entries": {"` + key + `": {"type": "file", "content": "x"}}}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := CheckManifest(m); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckManifest(%.20q) = %v, want %q", key, err, want)
		}
	}
}
