//go:build linux

package local

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A directory of empty directories where a file goes gives way when the
// item allows it; without the flag, or when it holds a file, a symlink or
// a FIFO, the write fails naming the path and the directory stays whole.
func TestWriteBatch_replaceEmptyDir(t *testing.T) {
	b := newWorkspace(t)
	root := b.Root()
	mk := func(dirs ...string) {
		for _, d := range dirs {
			if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	write := func(rel string, replace bool) error {
		_, err := b.WriteBatch(bg, items(BatchItem{Rel: rel, Perm: 0o644, R: strings.NewReader("new"), ReplaceEmptyDir: replace}))
		return err
	}

	mk("e/x/y", "e/z")
	if err := write("e", false); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("without the flag: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(root, "e/x/y")); err != nil || !fi.IsDir() {
		t.Fatalf("without the flag the directories went: %v", err)
	}
	if err := write("e", true); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(root, "e")); err != nil || string(got) != "new" {
		t.Fatalf("e = %q, %v", got, err)
	}

	mk("f/sub", "s", "p")
	if err := os.WriteFile(filepath.Join(root, "f/sub/keep"), []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(root, "s/link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "p/pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	for rel, kept := range map[string]string{"f": "f/sub/keep", "s": "s/link", "p": "p/pipe"} {
		err := write(rel, true)
		if err == nil || !strings.Contains(err.Error(), "write "+rel+": is a directory: a directory that is not empty stands where this file goes") {
			t.Errorf("%s: %v", rel, err)
		}
		if _, err := os.Lstat(filepath.Join(root, kept)); err != nil {
			t.Errorf("%s: %v", kept, err)
		}
	}
}
