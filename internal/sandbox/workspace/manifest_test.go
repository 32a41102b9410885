package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
)

func sumOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func TestManifestApplyReadRemove(t *testing.T) {
	eng, wd := newEngine(t)
	ctx := context.Background()
	if err := os.MkdirAll(filepath.Join(wd, "skills", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, c := range map[string]string{"tool.sh": "#!/bin/sh\n", "skills/a.md": "a", "skills/sub/b.md": "b"} {
		if err := os.WriteFile(filepath.Join(wd, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := eng.CreateLocal(ctx, LocalSpec{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Parse([]byte(`{"entries": {
		"docs": {"type": "dir", "permissions": {"owner": 7, "group": 5}, "children": {
			"readme.md": {"type": "file", "content": "hello", "permissions": {"owner": 6, "group": 4}}}},
		"bin/tool.sh": {"type": "local_file", "src": "tool.sh"},
		"skills": {"type": "local_dir", "src": "skills", "permissions": {"owner": 7}},
		"empty": {"type": "local_dir"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := eng.PlanManifest(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	applied, err := w.ApplyManifest(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]struct {
		content string
		mode    os.FileMode
	}{"docs/readme.md": {"hello", 0o640}, "bin/tool.sh": {"#!/bin/sh\n", 0o755}, "skills/sub/b.md": {"b", 0o644}} {
		b, err := os.ReadFile(filepath.Join(w.Root, p))
		fi, _ := os.Stat(filepath.Join(w.Root, p))
		if err != nil || string(b) != want.content || fi.Mode().Perm() != want.mode {
			t.Errorf("%s: %q %v %v", p, b, err, fi.Mode())
		}
	}
	for p, mode := range map[string]os.FileMode{"docs": 0o750, "skills": 0o700, "empty": 0o755} {
		if fi, err := os.Stat(filepath.Join(w.Root, p)); err != nil || !fi.IsDir() || fi.Mode().Perm() != mode {
			t.Errorf("%s: %v %v", p, fi, err)
		}
	}
	if applied.Files["docs/readme.md"] != sumOf("hello") || applied.Files["skills/a.md"] != sumOf("a") {
		t.Errorf("files = %v", applied.Files)
	}
	read, err := w.ReadManifest(ctx, plan)
	if err != nil || !reflect.DeepEqual(read, applied) {
		t.Fatalf("read %v (%v) != applied %v", read, err, applied)
	}
	// Drift: content, mode, a foreign file in the copy, a deleted dir.
	_ = os.WriteFile(filepath.Join(w.Root, "docs/readme.md"), []byte("changed"), 0o640)
	_ = os.Chmod(filepath.Join(w.Root, "bin/tool.sh"), 0o600)
	_ = os.WriteFile(filepath.Join(w.Root, "skills/extra"), []byte("x"), 0o600)
	_ = os.Remove(filepath.Join(w.Root, "empty"))
	read, err = w.ReadManifest(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	if read.Files["docs/readme.md"] != sumOf("changed") || read.Entries["bin/tool.sh"].Permissions != "0600" ||
		read.Files["skills/extra"] == "" || read.Entries["empty"].Permissions != "" {
		t.Fatalf("drift not seen: %+v", read)
	}
	if _, err := w.ApplyManifest(ctx, plan); err != nil {
		t.Fatal(err)
	}
	if read, _ = w.ReadManifest(ctx, plan); !reflect.DeepEqual(read, applied) {
		t.Fatalf("not repaired: %+v", read)
	}
	// Destroy removes only what the manifest wrote.
	_ = os.WriteFile(filepath.Join(w.Root, "docs/foreign.txt"), []byte("keep"), 0o644)
	var files []string
	for f := range applied.Files {
		files = append(files, f)
	}
	warnings, err := w.RemoveManifest(ctx, plan.Entries, files)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "docs") {
		t.Errorf("warnings = %v", warnings)
	}
	if _, err := os.Stat(filepath.Join(w.Root, "docs/foreign.txt")); err != nil {
		t.Errorf("foreign file removed: %v", err)
	}
	for _, p := range []string{"docs/readme.md", "skills", "empty", "bin/tool.sh"} {
		if _, err := os.Lstat(filepath.Join(w.Root, p)); !os.IsNotExist(err) {
			t.Errorf("%s still there: %v", p, err)
		}
	}
}

func TestCheckManifestRefusals(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"entries": {"r": {"type": "git_repo", "repo": "o/r", "ref": "main", "subpath": "../x"}}}`, "git repo subpath must be a relative path inside the repository: ../x"},
		{`{"entries": {"r": {"type": "git_repo", "repo": "o/r", "ref": "main"}, "r/f": {"type": "file", "content": ""}}}`, `"r/f" lies inside git_repo entry "r"`},
		{`{"entries": {"a": {"type": "dir", "children": {"b": {"type": "file", "content": ""}}}, "a/b": {"type": "file", "content": ""}}}`, `"a/b" is given twice`},
		{`{"entries": {"": {"type": "file", "content": ""}}}`, "names the workspace root"},
		{`{"entries": {"s": {"type": "local_dir", "src": "x"}, "s/f": {"type": "file", "content": ""}}}`, `"s/f" lies inside local_dir entry "s"`},
		{`{"entries": {"safe": {"type": "dir", "children": {"../x": {"type": "file", "content": ""}}}}}`, "manifest path must not escape root: safe/../x"},
		{`{"entries": {"f": {"type": "file", "content": "", "permissions": {"owner": 9, "group": 0, "other": 0}}}}`, `"f" has permissions owner=9 group=0 other=0: each must be 0 to 7`},
		{`{"entries": {"f": {"type": "file", "content": "", "permissions": {"owner": -1, "group": 0, "other": 0}}}}`, `owner=-1`},
	} {
		m, err := manifest.Parse([]byte(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		_, err = CheckManifest(m)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.in, err, tt.want)
		}
	}
}
