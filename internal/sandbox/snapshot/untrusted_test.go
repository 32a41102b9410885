//go:build linux

package snapshot

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/tartest"
)

func TestSparseMemberIsRefused(t *testing.T) {
	bomb := tartest.SparseBomb(5 << 30)
	if len(bomb) > 10<<10 {
		t.Fatalf("the bomb is %d bytes", len(bomb))
	}
	_, err := Validate(bytes.NewReader(bomb), sandbox.OutputLimits{})
	if !errors.Is(err, ErrUnsafeMember) || !strings.Contains(err.Error(), `"./big"`) || !strings.Contains(err.Error(), "sparse") {
		t.Fatalf("Validate: %v, want a sparse refusal naming ./big", err)
	}
	// Extract on its own (the helper in a container) refuses it too; a
	// small realsize keeps the old behaviour's damage small.
	dst := t.TempDir()
	if _, err := Extract(context.Background(), dst, bytes.NewReader(tartest.SparseBomb(1<<20)), false, sandbox.OutputLimits{}); !errors.Is(err, ErrUnsafeMember) {
		t.Fatalf("Extract: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dst, "big")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("big was written: %v", err)
	}
	// The old GNU 'S' type.
	old := tartest.OldGNUSparse()
	if _, err := Validate(bytes.NewReader(old), sandbox.OutputLimits{}); !errors.Is(err, ErrUnsafeMember) || !strings.Contains(err.Error(), `"./s"`) {
		t.Fatalf("old GNU sparse: %v", err)
	}
}

func threeFiles(t *testing.T) []byte {
	return archiveOf(t,
		member{hdr: tar.Header{Name: "./d/", Typeflag: tar.TypeDir, Mode: 0o755}},
		member{hdr: tar.Header{Name: "./d/a", Typeflag: tar.TypeReg}, body: strings.Repeat("a", 10)},
		member{hdr: tar.Header{Name: "./d/b", Typeflag: tar.TypeReg}, body: strings.Repeat("b", 10)},
		member{hdr: tar.Header{Name: "./d/c", Typeflag: tar.TypeReg}, body: strings.Repeat("c", 10)})
}

func TestRestoreLimits(t *testing.T) {
	data := threeFiles(t)
	cases := map[string]struct {
		l     sandbox.OutputLimits
		limit string
		path  string
	}{
		"max_files": {sandbox.OutputLimits{MaxFiles: 3}, "max_files", "d/c"},
		"max_bytes": {sandbox.OutputLimits{MaxBytes: 25}, "max_bytes", "d/c"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var le *sandbox.LimitError
			if _, err := Validate(bytes.NewReader(data), tc.l); !errors.As(err, &le) || le.Limit != tc.limit || le.Path != tc.path || le.Op != "restore" {
				t.Fatalf("Validate: %v", err)
			}
			dst := t.TempDir()
			if _, err := Extract(context.Background(), dst, bytes.NewReader(data), false, tc.l); !errors.As(err, &le) || le.Limit != tc.limit {
				t.Fatalf("Extract: %v", err)
			}
			if _, err := os.Lstat(filepath.Join(dst, "d", "c")); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("d/c was written past the bound: %v", err)
			}
		})
	}
	if _, err := Validate(bytes.NewReader(data), sandbox.OutputLimits{MaxFiles: 4, MaxBytes: 30}); err != nil {
		t.Fatalf("exactly at the bounds: %v", err)
	}
}

func dir(name string) member {
	return member{hdr: tar.Header{Name: name, Typeflag: tar.TypeDir, Mode: 0o755}}
}

func link(name, target string) member {
	return member{hdr: tar.Header{Name: name, Typeflag: tar.TypeSymlink, Linkname: target}}
}

// layOut makes the links of ms under a fresh root (inside a parent) with
// plain os calls and returns where the kernel resolves the last one.
func layOut(t *testing.T, ms []member) (root, resolved string) {
	t.Helper()
	parent := t.TempDir()
	root = filepath.Join(parent, "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		p := filepath.Join(root, m.hdr.Name)
		var err error
		if m.hdr.Typeflag == tar.TypeDir {
			err = os.MkdirAll(p, 0o755)
		} else {
			err = os.Symlink(m.hdr.Linkname, p)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	resolved, err := filepath.EvalSymlinks(filepath.Join(root, ms[len(ms)-1].hdr.Name))
	if err != nil {
		t.Fatal(err)
	}
	return root, resolved
}

func TestLinkChainsLeavingTheRootAreRefused(t *testing.T) {
	cases := map[string]struct {
		ms   []member
		name string
	}{
		"two links": {[]member{dir("./a/"), link("./a/b", ".."), link("./p", "a/b/..")}, "./p"},
		"three links through a directory": {[]member{dir("./d/"), link("./d/l1", ".."), link("./l2", "d/l1/d"),
			link("./l3", "l2/l1/..")}, "./l3"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			root, got := layOut(t, tc.ms)
			if strings.HasPrefix(got+"/", root+"/") {
				t.Fatalf("the test's premise: %s resolves to %s, inside the root", tc.name, got)
			}
			data := archiveOf(t, append([]member{dir("./")}, tc.ms...)...)
			_, err := Validate(bytes.NewReader(data), sandbox.OutputLimits{})
			if !errors.Is(err, ErrUnsafeMember) || !strings.Contains(err.Error(), `"`+tc.name+`"`) {
				t.Fatalf("Validate: %v, want a refusal naming %s", err, tc.name)
			}
			if _, err := Extract(context.Background(), t.TempDir(), bytes.NewReader(data), false, sandbox.OutputLimits{}); !errors.Is(err, ErrUnsafeMember) {
				t.Fatalf("Extract: %v", err)
			}
		})
	}
}

func TestLinkChainsInsideTheRootAreRestored(t *testing.T) {
	ms := []member{dir("./a/"), dir("./a/c/"), link("./a/b", ".."), link("./p", "a/b/a/c"), link("./q", "p/../b/a/c")}
	root, got := layOut(t, ms)
	if got != filepath.Join(root, "a", "c") {
		t.Fatalf("the test's premise: q resolves to %s", got)
	}
	data := archiveOf(t, ms...)
	if _, err := Validate(bytes.NewReader(data), sandbox.OutputLimits{}); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	if _, err := Extract(context.Background(), dst, bytes.NewReader(data), false, sandbox.OutputLimits{}); err != nil {
		t.Fatal(err)
	}
	if l, err := os.Readlink(filepath.Join(dst, "q")); err != nil || l != "p/../b/a/c" {
		t.Fatalf("q: %q, %v", l, err)
	}
	loop := archiveOf(t, link("./x", "y"), link("./y", "x"))
	if _, err := Validate(bytes.NewReader(loop), sandbox.OutputLimits{}); !errors.Is(err, ErrUnsafeMember) || !strings.Contains(err.Error(), "more than 40") {
		t.Fatalf("a loop: %v", err)
	}
}

// persisted is the Persist stream of a tree holding an absolute symlink
// and a chain that leaves the root.
func persisted(t *testing.T) []byte {
	t.Helper()
	src := t.TempDir()
	for _, d := range []string{"out", "a"} {
		if err := os.Mkdir(filepath.Join(src, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(src, "out", "kept.txt"), []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for l, target := range map[string]string{"out/x": "/etc/passwd", "a/b": "..", "p": "a/b/..", "ok": "out/kept.txt"} {
		if err := os.Symlink(target, filepath.Join(src, l)); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if _, err := Persist(context.Background(), src, nil, "", &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestSnapshotCheck(t *testing.T) {
	stream := persisted(t)
	var out bytes.Buffer
	_, _, err := Check(context.Background(), bytes.NewReader(stream), &out, CheckOptions{})
	if !errors.Is(err, ErrUnsafeMember) || !strings.Contains(err.Error(), `"./out/x"`) {
		t.Fatalf("Check: %v, want a refusal naming out/x", err)
	}
	out.Reset()
	sum, excluded, err := Check(context.Background(), bytes.NewReader(stream), &out, CheckOptions{ExcludeUnsafe: true, ManifestDigest: "dg"})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range excluded {
		paths = append(paths, e.Path)
	}
	if strings.Join(paths, ",") != "out/x,p" {
		t.Fatalf("excluded %v", excluded)
	}
	again, err := Summarize(bytes.NewReader(out.Bytes()), "dg")
	if err != nil || again.SHA256 != sum.SHA256 || again.Fingerprint != sum.Fingerprint || int64(out.Len()) != sum.Size {
		t.Fatalf("summary %+v, archive %+v, %v", sum, again, err)
	}
	dst := t.TempDir()
	if _, err := Extract(context.Background(), dst, bytes.NewReader(out.Bytes()), false, sandbox.OutputLimits{}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "ok")); err != nil || string(b) != "kept\n" {
		t.Fatalf("ok reads %q, %v", b, err)
	}
	for _, gone := range []string{"out/x", "p"} {
		if _, err := os.Lstat(filepath.Join(dst, gone)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s restored: %v", gone, err)
		}
	}
	var le *sandbox.LimitError
	if _, _, err := Check(context.Background(), bytes.NewReader(stream), &out, CheckOptions{ExcludeUnsafe: true,
		Limits: sandbox.OutputLimits{MaxBytes: 2048}}); !errors.As(err, &le) || le.Op != "snapshot" || le.Limit != "max_bytes" {
		t.Fatalf("max_bytes: %v", err)
	}
	if _, _, err := Check(context.Background(), bytes.NewReader(stream), &out, CheckOptions{ExcludeUnsafe: true,
		Limits: sandbox.OutputLimits{MaxFiles: 2}}); !errors.As(err, &le) || le.Limit != "max_files" {
		t.Fatalf("max_files: %v", err)
	}
}

// Check drops the members of its skip paths whatever the stream holds, so
// a helper that ignored them cannot put them in the archive.
func TestSnapshotCheckSkips(t *testing.T) {
	stream := archiveOf(t,
		member{hdr: tar.Header{Name: "./", Typeflag: tar.TypeDir, Mode: 0o755}},
		member{hdr: tar.Header{Name: "./keep", Typeflag: tar.TypeReg}, body: "k"},
		member{hdr: tar.Header{Name: "./eph/", Typeflag: tar.TypeDir, Mode: 0o755}},
		member{hdr: tar.Header{Name: "./eph/x", Typeflag: tar.TypeReg}, body: "x"},
		member{hdr: tar.Header{Name: "./ephemeral", Typeflag: tar.TypeReg}, body: "not below eph"},
		member{hdr: tar.Header{Name: "./d/f", Typeflag: tar.TypeReg}, body: "f"})
	var out bytes.Buffer
	sum, _, err := Check(context.Background(), bytes.NewReader(stream), &out, CheckOptions{Skip: []string{"eph", "d/f"}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	tr := tar.NewReader(&out)
	for {
		hdr, err := tr.Next()
		if err != nil {
			break
		}
		names = append(names, hdr.Name)
	}
	if got := strings.Join(names, ","); got != "./,./keep,./ephemeral" || sum.FileCount != 2 {
		t.Fatalf("archive members %s (%d files)", got, sum.FileCount)
	}
}
