package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/local"
)

func TestCheckEntryPath(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"dir/sub"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "file"), []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	b := local.New(root)
	for _, c := range []struct {
		rel         string
		want        PathType
		path, found string // the obstruction, "" for none
	}{
		{"missing", PathFile, "", ""},
		{"missing/below", PathDir, "", ""},
		{"file", PathFile, "", ""},
		{"dir", PathDir, "", ""},
		{"dir", PathFile, "dir", "a directory"},
		{"file", PathDir, "file", "a regular file (5 bytes)"},
		{"file/below", PathFile, "file", "a regular file (5 bytes)"},
		{"link", PathDir, "link", "a symlink"},
		{"link/passwd", PathFile, "link", "a symlink"},
	} {
		err := checkEntryPath(context.Background(), b, c.rel, c.want)
		var oe *ObstructionError
		switch {
		case c.path == "" && err != nil:
			t.Errorf("%s as %v: %v", c.rel, c.want, err)
		case c.path == "":
		case !errors.As(err, &oe) || oe.Path != c.path || oe.Found != c.found || oe.Entry != c.rel:
			t.Errorf("%s as %v: got %v, want %s to be %s", c.rel, c.want, err, c.path, c.found)
		case (c.found == "a symlink") != errors.Is(err, backend.ErrEscapesRoot):
			t.Errorf("%s: a symlink in the way must wrap ErrEscapesRoot, and only then: %v", c.rel, err)
		}
	}
}
