//go:build linux

package local

import (
	"bytes"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

// kernelOnly is a FileSource whose Read fails: a write that succeeds from
// it took every byte inside the kernel.
type kernelOnly struct {
	f      *os.File
	copied atomic.Int64
	reads  atomic.Int64
}

func (k *kernelOnly) Read([]byte) (int, error) {
	k.reads.Add(1)
	return 0, errors.New("read called: the bytes were to be copied inside the kernel")
}
func (k *kernelOnly) SourceFile() *os.File { return k.f }
func (k *kernelOnly) Copied(n int64)       { k.copied.Add(n) }

// hostFile writes size random bytes to a new file and opens it.
func hostFile(t *testing.T, size int) (*os.File, []byte) {
	t.Helper()
	data := make([]byte, size)
	if _, err := rand.Read(data); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "src.bin")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, data
}

// A large host file is copied inside the kernel, hashed from the copy, and
// lands whole with its mode; the progress hears of every byte.
func TestWriteFileKernelCopy(t *testing.T) {
	b := newWorkspace(t)
	f, data := hostFile(t, 3*copyWindow+12345) // several windows and a partial one
	src := &kernelOnly{f: f}
	res, err := b.WriteFile(bg, "d/big.bin", src, 0o640, sum(data))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(b.Root(), "d/big.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes (%v), want the %d written", len(got), err, len(data))
	}
	if res.SHA256 != sum(data) || res.Size != int64(len(data)) {
		t.Errorf("result %+v, want size %d sha256 %s", res, len(data), sum(data))
	}
	if src.copied.Load() != int64(len(data)) || src.reads.Load() != 0 {
		t.Errorf("copied %d bytes with %d reads, want %d with none", src.copied.Load(), src.reads.Load(), len(data))
	}
	if m := modeOf(t, filepath.Join(b.Root(), "d/big.bin")); m != 0o640 {
		t.Errorf("mode %04o, want 0640", m)
	}
	noTemps(t, filepath.Join(b.Root(), "d"))
}

// The digest of a kernel copy is taken from what was written: a source
// that is not what the plan hashed is refused and nothing is left.
func TestWriteFileKernelCopyChecksum(t *testing.T) {
	b := newWorkspace(t)
	if _, err := b.WriteFile(bg, "big.bin", strings.NewReader("old"), 0o644, ""); err != nil {
		t.Fatal(err)
	}
	f, _ := hostFile(t, kernelCopyFrom+1)
	_, err := b.WriteFile(bg, "big.bin", &kernelOnly{f: f}, 0o644, strings.Repeat("0", 64))
	var changed *ContentChangedError
	if !errors.Is(err, backend.ErrContentChanged) || !errors.As(err, &changed) || changed.Rel != "big.bin" {
		t.Fatalf("want a content change naming big.bin, got %v", err)
	}
	got, _ := os.ReadFile(filepath.Join(b.Root(), "big.bin"))
	if string(got) != "old" {
		t.Errorf("target is %d bytes, want the old content kept", len(got))
	}
	noTemps(t, b.Root())
}

// Below kernelCopyFrom, and for readers that are not files, the bytes are
// read and streamed as before.
func TestWriteFileSmallHostFileStreams(t *testing.T) {
	b := newWorkspace(t)
	f, data := hostFile(t, kernelCopyFrom-1)
	if _, err := b.WriteFile(bg, "small.bin", &kernelOnly{f: f}, 0o644, ""); err == nil {
		t.Fatal("a small file was not read: want the failing Read's error")
	}
	if _, err := f.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := b.WriteFile(bg, "small.bin", f, 0o644, sum(data)); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(b.Root(), "small.bin")); !bytes.Equal(got, data) {
		t.Errorf("read back %d bytes, want %d", len(got), len(data))
	}
}

// A batch copies its large host files inside the kernel in stream order,
// between small files staged by the workers, each with its own digest.
func TestWriteBatchKernelCopy(t *testing.T) {
	b := newWorkspace(t)
	f1, d1 := hostFile(t, kernelCopyFrom)
	f2, d2 := hostFile(t, 2*copyWindow+1)
	k1, k2 := &kernelOnly{f: f1}, &kernelOnly{f: f2}
	_, err := b.WriteBatch(bg, items(
		BatchItem{Rel: "a.txt", Perm: 0o644, R: strings.NewReader("a")},
		BatchItem{Rel: "x/one.bin", Perm: 0o600, R: k1, SHA256: sum(d1)},
		BatchItem{Rel: "b.txt", Perm: 0o644, R: strings.NewReader("b")},
		BatchItem{Rel: "x/two.bin", Perm: 0o600, R: k2, SHA256: sum(d2)},
	))
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string][]byte{"a.txt": []byte("a"), "b.txt": []byte("b"), "x/one.bin": d1, "x/two.bin": d2} {
		if got, _ := os.ReadFile(filepath.Join(b.Root(), rel)); !bytes.Equal(got, want) {
			t.Errorf("%s: read back %d bytes, want %d", rel, len(got), len(want))
		}
	}
	if k1.reads.Load()+k2.reads.Load() != 0 {
		t.Error("a large host file was read through the provider")
	}
	noTemps(t, filepath.Join(b.Root(), "x"))
}
