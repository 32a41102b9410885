//go:build linux

package local

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// openFds lists the process's open descriptors with what they name.
func openFds(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatalf("listing open descriptors: %v", err)
	}
	var out []string
	for _, e := range entries {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err != nil {
			continue // the descriptor ReadDir itself used
		}
		out = append(out, e.Name()+" -> "+target)
	}
	return out
}

// TestNoDescriptorLeaks runs every operation on the paths where it fails
// (and a few where it succeeds), with openat2 and with the openat fallback
// walk, and checks that the process holds exactly the descriptors it held
// before: none is left open on an error path.
func TestNoDescriptorLeaks(t *testing.T) {
	for _, fallback := range []bool{false, true} {
		t.Run("fallback="+strconv.FormatBool(fallback), func(t *testing.T) {
			noOpenat2.Store(fallback)
			defer noOpenat2.Store(false)
			b := newWorkspace(t)
			root := b.Root()
			outside := t.TempDir()
			for _, d := range []string{"dir/sub", "tree/a"} {
				if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range []string{"file", "tree/a/f"} {
				if err := os.WriteFile(filepath.Join(root, f), []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for link, target := range map[string]string{"link": outside, "flink": filepath.Join(root, "file"), "tree/l": outside} {
				if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Mkdir(filepath.Join(root, tempName("blocked")), 0o755); err != nil {
				t.Fatal(err)
			}
			busy, err := os.Open(plantTemp(t, b, "busy"))
			if err != nil {
				t.Fatal(err)
			}
			defer busy.Close()
			if err := unix.Flock(int(busy.Fd()), unix.LOCK_EX); err != nil {
				t.Fatal(err)
			}

			failures := map[string]func() error{
				"write checksum": func() error {
					return writeErr(b.WriteFile(bg, "dir/f", strings.NewReader("new"), 0o644, strings.Repeat("0", 64)))
				},
				"write reader": func() error {
					return writeErr(b.WriteFile(bg, "dir/f", &failingReader{n: 3 << 20, err: errors.New("boom")}, 0o644, ""))
				},
				"write cancelled":  func() error { return writeCancelled(b) },
				"write via link":   func() error { return writeErr(b.WriteFile(bg, "link/f", strings.NewReader("x"), 0o644, "")) },
				"write onto link":  func() error { return writeErr(b.WriteFile(bg, "flink", strings.NewReader("x"), 0o644, "")) },
				"write onto dir":   func() error { return writeErr(b.WriteFile(bg, "dir", strings.NewReader("x"), 0o644, "")) },
				"write below file": func() error { return writeErr(b.WriteFile(bg, "file/f", strings.NewReader("x"), 0o644, "")) },
				"write busy":       func() error { return writeErr(b.WriteFile(bg, "busy", strings.NewReader("x"), 0o644, "")) },
				"write temp dir":   func() error { return writeErr(b.WriteFile(bg, "blocked", strings.NewReader("x"), 0o644, "")) },
				"write no root": func() error {
					return writeErr(New(filepath.Join(outside, "none")).WriteFile(bg, "f", strings.NewReader("x"), 0o644, ""))
				},
				"batch checksum": func() error {
					_, err := b.WriteBatch(bg, items(
						BatchItem{Rel: "dir/a", Perm: 0o644, R: strings.NewReader("a")},
						BatchItem{Rel: "dir/big", Perm: 0o644, R: strings.NewReader(strings.Repeat("b", chunkSize+1))},
						BatchItem{Rel: "dir/c", Perm: 0o644, R: strings.NewReader("c"), SHA256: strings.Repeat("0", 64)},
					))
					return err
				},
				"batch via link": func() error {
					_, err := b.WriteBatch(bg, items(BatchItem{Rel: "dir/a", Perm: 0o644, R: strings.NewReader("a")}, BatchItem{Rel: "link/x", Perm: 0o644, R: strings.NewReader("x")}))
					return err
				},
				"stat missing":     func() error { _, err := b.Stat(bg, "dir/none"); return err },
				"stat via link":    func() error { _, err := b.Stat(bg, "link/x"); return err },
				"chmod link":       func() error { return b.Chmod(bg, "flink", 0o600) },
				"chmod missing":    func() error { return b.Chmod(bg, "none", 0o600) },
				"chgrp link":       func() error { return b.Chgrp(bg, "flink", strconv.Itoa(os.Getgid())) },
				"hash dir":         func() error { _, _, err := b.HashFile(bg, "dir"); return err },
				"hash link":        func() error { _, _, err := b.HashFile(bg, "flink"); return err },
				"mkdir below file": func() error { return b.MkdirAll(bg, "file/x/y", 0o755) },
				"mkdir via link":   func() error { return b.MkdirAll(bg, "link/x", 0o755) },
				"remove via link":  func() error { return b.RemoveAll(bg, "link/x") },
				"remove root":      func() error { return b.Remove(bg, ".") },
				"walk file":        func() error { _, err := b.WalkFiles(bg, "file"); return err },
				"walk via link":    func() error { _, err := b.WalkFiles(bg, "link"); return err },
				"marker missing":   func() error { _, err := ReadMarker(outside); return err },
				"marker no root":   func() error { return UpdateMarker(filepath.Join(outside, "none"), Marker{ID: "x"}) },
				"marker claimed": func() error {
					_ = ClaimMarker(root, Marker{ID: "a"})
					return UpdateMarker(root, Marker{ID: "b"})
				},
			}
			successes := []func() error{
				func() error { return writeErr(b.WriteFile(bg, "new/deep/f", strings.NewReader("x"), 0o644, "")) },
				func() error { _, err := b.WalkFiles(bg, "."); return err },
				func() error { return b.Chmod(bg, "dir", 0o755) },
				func() error { _, err := b.RemoveTree(bg, "tree", []string{"a/f", "l/x", "none/f"}); return err },
				func() error { return b.RemoveAll(bg, "new") },
			}
			run := func() {
				for name, op := range failures {
					if err := op(); err == nil {
						t.Fatalf("%s: succeeded, want an error", name)
					}
				}
				for i, op := range successes {
					if err := op(); err != nil {
						t.Fatalf("operation %d: %v", i, err)
					}
				}
				if err := os.MkdirAll(filepath.Join(root, "tree/a"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, "tree/a/f"), []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			run() // once first, so anything the runtime opens lazily is open
			before := openFds(t)
			for range 3 {
				run()
			}
			after := openFds(t)
			var leaked []string
			for _, d := range after {
				if !slices.Contains(before, d) {
					leaked = append(leaked, d)
				}
			}
			if len(leaked) > 0 || len(after) != len(before) {
				t.Fatalf("%d descriptors open before, %d after; new: %v", len(before), len(after), leaked)
			}
		})
	}
}

func writeErr[T any](_ T, err error) error { return err }

// writeCancelled cancels a write while its content streams.
func writeCancelled(b *Backend) error {
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	_, err := b.WriteFile(ctx, "dir/f", &failingReader{n: 2 << 20, hook: cancel}, 0o644, "")
	return err
}

// TestDirectoryDescriptorsCloseOnExec: the directory descriptors a write
// holds (the root's duplicate included) are close-on-exec, so a command
// started meanwhile inherits none of them.
func TestDirectoryDescriptorsCloseOnExec(t *testing.T) {
	b := newWorkspace(t)
	root, err := b.openRoot("write")
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, rel := range []string{"", "a/b"} {
		d, err := mkdirAll("write", root, rel, 0o755)
		if err != nil {
			t.Fatal(err)
		}
		flags, err := unix.FcntlInt(uintptr(d.n()), unix.F_GETFD, 0)
		d.Close()
		if err != nil || flags&unix.FD_CLOEXEC == 0 {
			t.Errorf("directory %q: descriptor flags %#x, %v; want FD_CLOEXEC", rel, flags, err)
		}
	}
}
