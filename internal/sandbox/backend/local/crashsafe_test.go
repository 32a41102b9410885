//go:build linux

package local

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// plantTemp leaves what a write of rel killed mid-way leaves: its temporary
// file, holding part of the content.
func plantTemp(t *testing.T, b *Backend, rel string) string {
	t.Helper()
	p := filepath.Join(b.Root(), filepath.Dir(rel), tempName(filepath.Base(rel)))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("half of it"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func TestTempName(t *testing.T) {
	if got, want := tempName("big.bin"), ".big.bin"+tmpInfix; !strings.HasPrefix(got, want) || len(got) != len(want)+12 {
		t.Fatalf("tempName(big.bin) = %q", got)
	}
	if a := "a"; tempName(a) != tempName("a") || tempName(a) == tempName("b") {
		t.Fatal("the temporary name must be fixed per target and differ between targets")
	}
	long1, long2 := strings.Repeat("x", 250)+"1", strings.Repeat("x", 250)+"2"
	if n := len(tempName(long1)); n > 255 {
		t.Fatalf("temporary name of %d bytes", n)
	}
	if tempName(long1) == tempName(long2) {
		t.Fatal("two long names sharing a prefix share a temporary name")
	}
}

// TestStaleTempSwept proves that the temporary file of a killed write is
// removed by the next write, batch write or removal of the same target,
// and that files of other names are never touched, even when they look
// like temporaries.
func TestStaleTempSwept(t *testing.T) {
	b := newWorkspace(t)
	foreign := []string{
		filepath.Join(b.Root(), "d", ".f.txt"+tmpInfix+"000000000000"), // another suffix: not ours
		filepath.Join(b.Root(), "d", tempName("g.txt")),                // another target's
		filepath.Join(b.Root(), "d", "f.txt.bak"),
	}
	for _, p := range foreign {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("not the provider's"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stale := plantTemp(t, b, "d/f.txt")
	if _, err := b.WriteFile(bg, "d/f.txt", strings.NewReader("new"), 0o644, ""); err != nil {
		t.Fatal(err)
	}
	if exists(stale) {
		t.Fatal("WriteFile left the stale temporary of its target")
	}
	for _, p := range foreign {
		if !exists(p) {
			t.Fatalf("%s was removed", p)
		}
	}

	stale = plantTemp(t, b, "d/h.txt")
	if _, err := b.WriteBatch(bg, batchOf(map[string]string{"d/h.txt": "batch"})); err != nil {
		t.Fatal(err)
	}
	if exists(stale) {
		t.Fatal("WriteBatch left the stale temporary of its target")
	}

	stale = plantTemp(t, b, "d/f.txt")
	if err := b.Remove(bg, "d/f.txt"); err != nil {
		t.Fatal(err)
	}
	if exists(stale) || exists(filepath.Join(b.Root(), "d/f.txt")) {
		t.Fatal("Remove left the file or its stale temporary")
	}
}

// batchOf is a WriteBatch source of the given files.
func batchOf(files map[string]string) func() (BatchItem, error) {
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return func() (BatchItem, error) {
		if len(names) == 0 {
			return BatchItem{}, io.EOF
		}
		n := names[0]
		names = names[1:]
		return BatchItem{Rel: n, Perm: 0o644, R: strings.NewReader(files[n])}, nil
	}
}

// TestLiveTempNotSwept proves that a temporary held by a live write is
// never removed: the second write fails and the first one's file stays.
func TestLiveTempNotSwept(t *testing.T) {
	b := newWorkspace(t)
	live := plantTemp(t, b, "f.txt")
	f, err := os.Open(live)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	_, err = b.WriteFile(bg, "f.txt", strings.NewReader("x"), 0o644, "")
	if !errors.Is(err, ErrTempBusy) {
		t.Fatalf("write while another holds the temporary: %v", err)
	}
	if !exists(live) || exists(filepath.Join(b.Root(), "f.txt")) {
		t.Fatal("the live temporary was touched or the target written")
	}
}

// TestTempNameTakenBySymlinkOrDir: a symlink planted at the temporary's
// name is removed without following it; a directory stops the write.
func TestTempNameTakenBySymlinkOrDir(t *testing.T) {
	b := newWorkspace(t)
	outside := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(outside, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(b.Root(), tempName("f.txt"))); err != nil {
		t.Fatal(err)
	}
	if _, err := b.WriteFile(bg, "f.txt", strings.NewReader("in"), 0o644, ""); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(outside); string(got) != "outside" {
		t.Fatalf("the symlink's target was written: %q", got)
	}
	dir := filepath.Join(b.Root(), tempName("g.txt"))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := b.WriteFile(bg, "g.txt", strings.NewReader("in"), 0o644, ""); err == nil || !strings.Contains(err.Error(), "not a file") {
		t.Fatalf("write with a directory at the temporary's name: %v", err)
	}
	if !exists(dir) {
		t.Fatal("the directory was removed")
	}
}
