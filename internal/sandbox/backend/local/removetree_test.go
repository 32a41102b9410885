//go:build linux

package local

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestRemoveTree removes the listed files and the directories left empty,
// keeps foreign files, listed paths that became directories, and never
// follows a symlink.
func TestRemoveTree(t *testing.T) {
	b := newWorkspace(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "x"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(rel, content string) {
		if _, err := b.WriteFile(bg, rel, bytes.NewReader([]byte(content)), 0o644, ""); err != nil {
			t.Fatal(err)
		}
	}
	write("t/a/1", "1")
	write("t/a/b/2", "2")
	write("t/c/3", "3")
	write("t/c/foreign", "theirs")
	write("t/d/4/inner", "theirs") // "t/d/4" was a file of the copy
	if err := os.Symlink(outside, filepath.Join(b.Root(), "t/e")); err != nil {
		t.Fatal(err)
	}
	stale := plantTemp(t, b, "t/a/1")
	rep, err := b.RemoveTree(bg, "t", []string{"a/1", "a/b/2", "c/3", "d/4", "e/x", "missing/5"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Left != 3 || !reflect.DeepEqual(rep.Kept, []string{"d/4"}) || rep.Gone {
		t.Fatalf("report %+v, want 3 left (foreign, inner, the symlink) and d/4 kept", rep)
	}
	for _, gone := range []string{"t/a", "t/c/3", stale} {
		if exists(filepath.Join(b.Root(), gone)) || exists(gone) {
			t.Errorf("%s is still there", gone)
		}
	}
	for _, kept := range []string{"t/c/foreign", "t/d/4/inner", "t/e"} {
		if !exists(filepath.Join(b.Root(), kept)) {
			t.Errorf("%s was removed", kept)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(outside, "x")); string(got) != "keep" {
		t.Fatal("a file behind a symlink was removed")
	}

	// Nothing foreign left: the directory itself goes.
	write("u/a/1", "1")
	if rep, err := b.RemoveTree(bg, "u", []string{"a/1"}); err != nil || rep.Left != 0 || exists(filepath.Join(b.Root(), "u")) {
		t.Fatalf("RemoveTree(u) = %+v, %v; u still there: %v", rep, err, exists(filepath.Join(b.Root(), "u")))
	}
	// Gone or replaced by a file: left alone.
	write("v", "a file where the tree was")
	for _, rel := range []string{"u", "v"} {
		if rep, err := b.RemoveTree(bg, rel, []string{"a/1"}); err != nil || !rep.Gone {
			t.Fatalf("RemoveTree(%s) = %+v, %v", rel, rep, err)
		}
	}
	if !exists(filepath.Join(b.Root(), "v")) {
		t.Fatal("a file in place of the tree was removed")
	}
}
