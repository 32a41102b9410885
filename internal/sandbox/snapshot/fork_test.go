//go:build linux

package snapshot

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

func TestForkCopiesAndRefuses(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(src, "a/skip"), 0o755))
	must(os.WriteFile(filepath.Join(src, "a/f"), []byte("data"), 0o640))
	must(os.WriteFile(filepath.Join(src, "a/skip/x"), []byte("x"), 0o644))
	sum, err := Fork(context.Background(), src, dst, []string{"a/skip"}, nil, sandbox.OutputLimits{})
	must(err)
	b, err := os.ReadFile(filepath.Join(dst, "a/f"))
	must(err)
	fi, err := os.Stat(filepath.Join(dst, "a/f"))
	must(err)
	if string(b) != "data" || fi.Mode().Perm() != 0o640 || sum.Files != 1 || sum.Reflinked+sum.Ranged+sum.Streamed != 1 {
		t.Fatalf("fork: %q %v %+v", b, fi.Mode(), sum)
	}
	if _, err := os.Lstat(filepath.Join(dst, "a/skip")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a skip path was forked: %v", err)
	}
	if sum.Method() == "" {
		t.Fatal("no method named")
	}

	// A link leaving the root is refused as a restore refuses it.
	must(os.Symlink("/etc", filepath.Join(src, "evil")))
	_, err = Fork(context.Background(), src, t.TempDir(), nil, nil, sandbox.OutputLimits{})
	if !errors.Is(err, ErrUnsafeMember) {
		t.Fatalf("a link to /etc: %v", err)
	}
	must(os.Remove(filepath.Join(src, "evil")))
	// Limits hold.
	_, err = Fork(context.Background(), src, t.TempDir(), nil, nil, sandbox.OutputLimits{MaxBytes: 2})
	var le *sandbox.LimitError
	if !errors.As(err, &le) || le.Limit != "max_bytes" {
		t.Fatalf("max_bytes 2: %v", err)
	}
}
