package hostsource

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// A missing source names the nearest existing sibling, at the level where
// the walk stopped, and names nothing when no sibling is close.
func TestMissingSourceSuggestsNearestName(t *testing.T) {
	f := newHostFixture(t)
	mustWrite(t, filepath.Join(f.base, "data", "grader.py"), "x")
	mustWrite(t, filepath.Join(f.base, "data", "README.md"), "x")
	mustWrite(t, filepath.Join(f.base, "notes.txt"), "x")
	ctx := context.Background()

	cases := []struct {
		src, child, want string
	}{
		{"data/grder.py", "data/grder.py", "data/grader.py"},
		{"data/readme.md", "data/readme.md", "data/README.md"},
		{"dta/grader.py", "dta", "data"},
		{"note.txt", "note.txt", "notes.txt"},
		{"data/unrelated-name.sh", "data/unrelated-name.sh", ""},
		{"zz", "zz", ""},
	}
	for _, c := range cases {
		_, _, err := f.p.DigestFile(ctx, c.src)
		se := wantSourceErr(t, err, sandbox.CodeLocalFileReadError, sandbox.ReasonPathNotFound, c.child)
		got, _ := se.Context["did_you_mean"].(string)
		if got != c.want {
			t.Errorf("%s: did_you_mean = %q, want %q (detail %q)", c.src, got, c.want, se.Detail())
		}
	}
	_, err := f.p.ScanDir(ctx, "dat")
	se := wantSourceErr(t, err, sandbox.CodeLocalDirReadError, sandbox.ReasonPathNotFound, "dat")
	if se.Context["did_you_mean"] != "data" {
		t.Errorf("ScanDir dat: did_you_mean = %v, want data", se.Context["did_you_mean"])
	}
}
