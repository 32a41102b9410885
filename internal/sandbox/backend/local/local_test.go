//go:build linux

package local

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

var bg = context.Background()

// newWorkspace creates a fresh workspace below a temp dir.
func newWorkspace(t *testing.T) *Backend {
	t.Helper()
	b := New(filepath.Join(t.TempDir(), "ws"))
	if err := b.Create(bg); err != nil {
		t.Fatal(err)
	}
	return b
}

func withUmask(t *testing.T, mask int) {
	t.Helper()
	old := syscall.Umask(mask)
	t.Cleanup(func() { syscall.Umask(old) })
}

func modeOf(t *testing.T, p string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// noTemps fails when a WriteFile temporary is left in dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), tmpInfix) {
			t.Fatalf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestWriteFileModesIgnoreUmask(t *testing.T) {
	for _, mask := range []int{0o077, 0o000} {
		withUmask(t, mask)
		b := newWorkspace(t)
		if got := modeOf(t, b.Root()); got != 0o755 {
			t.Fatalf("umask %03o: root mode %v", mask, got)
		}
		data := bytes.Repeat([]byte("0123456789"), 300_000) // 3 MB, several chunks
		res, err := b.WriteFile(bg, "a/b/c.txt", bytes.NewReader(data), 0o640, "")
		if err != nil {
			t.Fatal(err)
		}
		if res.Size != int64(len(data)) || res.SHA256 != sum(data) {
			t.Fatalf("result %+v", res)
		}
		got, err := os.ReadFile(filepath.Join(b.Root(), "a/b/c.txt"))
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("read back %d bytes, %v", len(got), err)
		}
		if m := modeOf(t, filepath.Join(b.Root(), "a/b/c.txt")); m != 0o640 {
			t.Fatalf("umask %03o: file mode %v", mask, m)
		}
		for _, d := range []string{"a", "a/b"} {
			if m := modeOf(t, filepath.Join(b.Root(), d)); m != 0o755 {
				t.Fatalf("umask %03o: dir %s mode %v", mask, d, m)
			}
		}
		if err := b.MkdirAll(bg, "x/y/z", 0o751); err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{"x", "x/y", "x/y/z"} {
			if m := modeOf(t, filepath.Join(b.Root(), d)); m != 0o751 {
				t.Fatalf("umask %03o: mkdir %s mode %v", mask, d, m)
			}
		}
		if err := b.MkdirAll(bg, "x/y/z/w", 0o700); err != nil || modeOf(t, filepath.Join(b.Root(), "x/y")) != 0o751 {
			t.Fatalf("existing directories must keep their mode: %v", err)
		}
		if err := b.Chmod(bg, "a/b/c.txt", 0o604); err != nil || modeOf(t, filepath.Join(b.Root(), "a/b/c.txt")) != 0o604 {
			t.Fatalf("chmod: %v", err)
		}
		if err := b.Chmod(bg, "a", 0o711); err != nil || modeOf(t, filepath.Join(b.Root(), "a")) != 0o711 {
			t.Fatalf("chmod dir: %v", err)
		}
		h, n, err := b.HashFile(bg, "a/b/c.txt")
		if err != nil || h != sum(data) || n != int64(len(data)) {
			t.Fatalf("HashFile %s %d %v", h, n, err)
		}
		fi, err := b.Stat(bg, "a/b/c.txt")
		if err != nil || !fi.IsRegular || fi.Perm != 0o604 || fi.Size != int64(len(data)) || fi.Path != "a/b/c.txt" {
			t.Fatalf("Stat %+v %v", fi, err)
		}
	}
}

// failingReader yields n bytes, then fails (or calls hook and continues).
type failingReader struct {
	n    int
	err  error
	hook func()
}

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		if r.hook != nil {
			r.hook()
			r.hook = nil
			return copy(p, "more"), nil
		}
		return 0, r.err
	}
	k := min(len(p), r.n)
	for i := range k {
		p[i] = 'x'
	}
	r.n -= k
	return k, nil
}

func TestWriteFileAtomic(t *testing.T) {
	b := newWorkspace(t)
	boom := errors.New("boom")
	_, err := b.WriteFile(bg, "d/new.bin", &failingReader{n: 3 << 20, err: boom}, 0o644, "")
	if !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
	if _, err := os.Lstat(filepath.Join(b.Root(), "d/new.bin")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("partial file exists: %v", err)
	}
	noTemps(t, filepath.Join(b.Root(), "d"))

	// Cancellation mid-stream leaves an existing file untouched.
	if _, err := b.WriteFile(bg, "d/old", strings.NewReader("old"), 0o644, ""); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	_, err = b.WriteFile(ctx, "d/old", &failingReader{n: 2 << 20, hook: cancel}, 0o644, "")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(b.Root(), "d/old")); string(got) != "old" {
		t.Fatalf("old file changed: %q", got)
	}
	noTemps(t, filepath.Join(b.Root(), "d"))
}

func TestWriteFileChecksum(t *testing.T) {
	b := newWorkspace(t)
	if _, err := b.WriteFile(bg, "f", strings.NewReader("old"), 0o600, ""); err != nil {
		t.Fatal(err)
	}
	_, err := b.WriteFile(bg, "f", strings.NewReader("new"), 0o644, sum([]byte("planned")))
	if !errors.Is(err, backend.ErrContentChanged) {
		t.Fatalf("got %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(b.Root(), "f")); string(got) != "old" || modeOf(t, filepath.Join(b.Root(), "f")) != 0o600 {
		t.Fatalf("old file changed: %q", got)
	}
	noTemps(t, b.Root())
	res, err := b.WriteFile(bg, "f", strings.NewReader("new"), 0o644, strings.ToUpper(sum([]byte("new"))))
	if err != nil || res.SHA256 != sum([]byte("new")) {
		t.Fatalf("matching checksum: %+v %v", res, err)
	}
}

func TestCreateAndDestroy(t *testing.T) {
	withUmask(t, 0o077)
	top := t.TempDir()
	b := New(filepath.Join(top, "p", "q", "ws"))
	if ok, err := b.Exists(bg); ok || err != nil {
		t.Fatalf("Exists before Create: %v %v", ok, err)
	}
	if err := b.Create(bg); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"p", "p/q", "p/q/ws"} {
		if m := modeOf(t, filepath.Join(top, d)); m != 0o755 {
			t.Fatalf("%s mode %v", d, m)
		}
	}
	if ok, err := b.Exists(bg); !ok || err != nil {
		t.Fatalf("Exists after Create: %v %v", ok, err)
	}
	if err := b.Create(bg); err != nil {
		t.Fatalf("an empty existing directory must be accepted: %v", err)
	}
	if _, err := b.WriteFile(bg, "keep", strings.NewReader("x"), 0o644, ""); err != nil {
		t.Fatal(err)
	}
	err := New(b.Root()).Create(bg)
	if err == nil || err.Error() != "refusing to create a workspace in non-empty directory "+b.Root() {
		t.Fatalf("non-empty: %v", err)
	}
	if err := os.Symlink(b.Root(), filepath.Join(top, "link")); err != nil {
		t.Fatal(err)
	}
	if err := New(filepath.Join(top, "link")).Create(bg); err == nil {
		t.Fatal("a symlink root was accepted")
	}
	if ok, _ := New(filepath.Join(top, "link")).Exists(bg); ok {
		t.Fatal("a symlink root exists")
	}
	if err := New(filepath.Join(b.Root(), "keep")).Create(bg); err == nil {
		t.Fatal("a file root was accepted")
	}
	if err := b.Destroy(bg); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.Exists(bg); ok || err != nil {
		t.Fatalf("Exists after Destroy: %v %v", ok, err)
	}
	if _, err := os.Lstat(filepath.Join(top, "link")); err != nil {
		t.Fatalf("symlink to the root removed: %v", err)
	}
}

func TestRemove(t *testing.T) {
	b := newWorkspace(t)
	for _, f := range []string{"a/1", "a/b/2", "c"} {
		if _, err := b.WriteFile(bg, f, strings.NewReader(f), 0o644, ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Remove(bg, "a"); err == nil {
		t.Fatal("Remove of a non-empty directory succeeded")
	}
	if err := b.Remove(bg, "c"); err != nil {
		t.Fatal(err)
	}
	if err := b.Remove(bg, "missing/x"); err != nil {
		t.Fatalf("missing: %v", err)
	}
	if err := b.Remove(bg, "."); err == nil {
		t.Fatal("Remove(.) succeeded")
	}
	if err := b.RemoveAll(bg, "a/b"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Stat(bg, "a/b"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a/b still there: %v", err)
	}
	if err := b.RemoveAll(bg, "."); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(b.Root())
	if err != nil || len(entries) != 0 {
		t.Fatalf("RemoveAll(.) left %v, %v", entries, err)
	}
	for _, bad := range []string{"../x", "/etc/passwd", "a/../../x"} {
		if err := b.RemoveAll(bg, bad); !errors.Is(err, backend.ErrEscapesRoot) {
			t.Fatalf("RemoveAll(%q): %v", bad, err)
		}
	}
}

func TestReadersOnRegularFilesOnly(t *testing.T) {
	b := newWorkspace(t)
	if err := b.MkdirAll(bg, "dir", 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.HashFile(bg, "dir"); err == nil {
		t.Fatal("HashFile of a directory succeeded")
	}
	if _, err := b.WriteFile(bg, "dir", strings.NewReader("x"), 0o644, ""); err == nil {
		t.Fatal("WriteFile over a directory succeeded")
	}
	if _, err := b.Stat(bg, "nope"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Stat missing: %v", err)
	}
	if _, err := b.WriteFile(bg, ".", strings.NewReader("x"), 0o644, ""); err == nil {
		t.Fatal("WriteFile(.) succeeded")
	}
	if fi, err := b.Stat(bg, "."); err != nil || !fi.IsDir {
		t.Fatalf("Stat(.) %+v %v", fi, err)
	}
	if b.Kind() != "local" {
		t.Fatal(b.Kind())
	}
}
