//go:build linux

package local

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteFileHoldsItsTemporary proves that a write keeps its temporary
// file locked while the content streams: a second write or batch of the
// same target meanwhile fails with ErrTempBusy and neither touches the
// temporary, and the first write then lands whole, with its result.
func TestWriteFileHoldsItsTemporary(t *testing.T) {
	b := newWorkspace(t)
	target := filepath.Join(b.Root(), "d", "f")
	tmp := filepath.Join(b.Root(), "d", tempName("f"))
	var during []error
	r := &failingReader{n: 2 << 20, err: io.EOF, hook: func() {
		if !exists(tmp) || exists(target) {
			t.Errorf("while streaming: temporary present %v, target present %v", exists(tmp), exists(target))
		}
		_, err := b.WriteFile(bg, "d/f", strings.NewReader("other"), 0o644, "")
		during = append(during, err)
		_, err = b.WriteBatch(bg, items(BatchItem{Rel: "d/f", Perm: 0o644, R: strings.NewReader("other")}))
		during = append(during, err)
	}}
	res, err := b.WriteFile(bg, "d/f", r, 0o600, "")
	if err != nil {
		t.Fatal(err)
	}
	for i, err := range during {
		if !errors.Is(err, ErrTempBusy) {
			t.Errorf("concurrent write %d: %v, want ErrTempBusy", i, err)
		}
	}
	got, err := os.ReadFile(target)
	want := strings.Repeat("x", 2<<20) + "more"
	if err != nil || string(got) != want {
		t.Fatalf("read back %d bytes, %v", len(got), err)
	}
	if res.Size != int64(len(want)) || res.SHA256 != sum([]byte(want)) {
		t.Fatalf("result %+v", res)
	}
	if m := modeOf(t, target); m != 0o600 {
		t.Fatalf("mode %v", m)
	}
	noTemps(t, filepath.Join(b.Root(), "d"))
}
