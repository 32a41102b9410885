//go:build linux

package local

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

func items(list ...BatchItem) func() (BatchItem, error) {
	return func() (BatchItem, error) {
		if len(list) == 0 {
			return BatchItem{}, io.EOF
		}
		it := list[0]
		list = list[1:]
		return it, nil
	}
}

func TestWriteBatch(t *testing.T) {
	withUmask(t, 0o077)
	b := newWorkspace(t)
	res, err := b.WriteBatch(bg, items(
		BatchItem{Rel: "a/one.txt", Perm: 0o640, R: strings.NewReader("one")},
		BatchItem{Rel: "a/b/two.txt", Perm: 0o755, R: strings.NewReader("two"),
			SHA256: "3fc4ccfe745870e2c0d99f71f30ff0656c8dedd41cc1d7d3d376b0dbe685e2f3"},
	))
	if err != nil || len(res) != 2 || res[1].Size != 3 {
		t.Fatalf("%+v %v", res, err)
	}
	for p, want := range map[string]os.FileMode{"a/one.txt": 0o640, "a/b/two.txt": 0o755, "a": 0o755, "a/b": 0o755} {
		if got := modeOf(t, filepath.Join(b.Root(), p)); got != want {
			t.Errorf("%s: mode %04o, want %04o", p, got, want)
		}
	}
}

// A failing item leaves every target as it was and no temporary file.
func TestWriteBatch_allOrNothing(t *testing.T) {
	b := newWorkspace(t)
	if _, err := b.WriteFile(bg, "keep.txt", strings.NewReader("old"), 0o644, ""); err != nil {
		t.Fatal(err)
	}
	_, err := b.WriteBatch(bg, items(
		BatchItem{Rel: "keep.txt", Perm: 0o644, R: strings.NewReader("new")},
		BatchItem{Rel: "bad.txt", Perm: 0o644, R: strings.NewReader("x"), SHA256: strings.Repeat("0", 64)},
	))
	if !errors.Is(err, backend.ErrContentChanged) {
		t.Fatalf("mismatch: %v", err)
	}
	got, _ := os.ReadFile(filepath.Join(b.Root(), "keep.txt"))
	names, _ := os.ReadDir(b.Root())
	if string(got) != "old" || len(names) != 1 {
		t.Fatalf("after a failed batch: keep.txt=%q, %d entries", got, len(names))
	}
}

// A directory replaced by a symlink is never written through.
func TestWriteBatch_symlink(t *testing.T) {
	b := newWorkspace(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(b.Root(), "link")); err != nil {
		t.Fatal(err)
	}
	_, err := b.WriteBatch(bg, items(BatchItem{Rel: "link/x", Perm: 0o644, R: strings.NewReader("x")}))
	if !errors.Is(err, backend.ErrEscapesRoot) {
		t.Fatalf("write through a symlink: %v", err)
	}
	if names, _ := os.ReadDir(outside); len(names) != 0 {
		t.Fatalf("wrote outside the root: %v", names)
	}
}

func TestEnsureRoot(t *testing.T) {
	dir := t.TempDir()
	b := New(filepath.Join(dir, "x", "ws"))
	if err := b.EnsureRoot(bg); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b.Root(), "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := b.EnsureRoot(bg); err != nil {
		t.Fatalf("a non-empty root is accepted: %v", err)
	}
	if err := os.Symlink(dir, filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	if err := New(filepath.Join(dir, "l")).EnsureRoot(bg); err == nil {
		t.Fatal("a symlink root was accepted")
	}
}

// Small files staged by the workers and large ones streamed in order land
// with their content, in order of the results.
func TestWriteBatch_mixedSizes(t *testing.T) {
	b := newWorkspace(t)
	var list []BatchItem
	want := map[string]int{}
	for i := 0; i < 40; i++ {
		size := i * 7
		if i%10 == 3 {
			size = chunkSize + 12345
		}
		rel := filepath.Join("d", string(rune('a'+i%5)), strings.Repeat("f", 1+i%3)+string(rune('0'+i%10))+"-"+string(rune('a'+i/10)))
		want[rel] = size
		list = append(list, BatchItem{Rel: rel, Perm: 0o644, R: strings.NewReader(strings.Repeat("x", size))})
	}
	res, err := b.WriteBatch(bg, items(list...))
	if err != nil || len(res) != len(list) {
		t.Fatalf("%d results, %v", len(res), err)
	}
	for i, it := range list {
		if res[i].Size != int64(want[it.Rel]) {
			t.Fatalf("result %d: size %d, want %d", i, res[i].Size, want[it.Rel])
		}
		fi, err := os.Stat(filepath.Join(b.Root(), it.Rel))
		if err != nil || fi.Size() != int64(want[it.Rel]) {
			t.Fatalf("%s: %v %v", it.Rel, fi, err)
		}
	}
}
