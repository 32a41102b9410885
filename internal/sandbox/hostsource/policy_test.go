//go:build linux

package hostsource

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/checksum"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// hostFixture is a temp dir holding base/ (the policy's BaseDir) and other/.
type hostFixture struct {
	top, base, other string
	p                Policy
}

func newHostFixture(t *testing.T) hostFixture {
	t.Helper()
	top := t.TempDir()
	f := hostFixture{top: top, base: filepath.Join(top, "base"), other: filepath.Join(top, "other")}
	mustMkdir(t, f.base)
	mustMkdir(t, f.other)
	f.p = Policy{BaseDir: f.base}
	return f
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, name, content string) {
	t.Helper()
	mustMkdir(t, filepath.Dir(name))
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustSymlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// wantSourceErr checks a structured error's code, reason and child.
func wantSourceErr(t *testing.T, err error, code, reason, child string) *sandbox.Error {
	t.Helper()
	var se *sandbox.Error
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T) is not a *Error", err, err)
	}
	if se.Code != code || se.Reason() != reason {
		t.Fatalf("got code %q reason %q (%v), want %q %q", se.Code, se.Reason(), se.Detail(), code, reason)
	}
	if child != "" && se.Context["child"] != child {
		t.Fatalf("child = %v, want %q", se.Context["child"], child)
	}
	return se
}

func TestDigestFileRelativeAndAbsolute(t *testing.T) {
	f := newHostFixture(t)
	content := "hello\n"
	mustWrite(t, filepath.Join(f.base, "sub", "f.txt"), content)
	want := checksum.DigestBytesWith([]byte(content), 0) // SHA-256 only
	for _, src := range []string{"sub/f.txt", "./sub/../sub/f.txt", filepath.Join(f.base, "sub", "f.txt")} {
		abs, d, err := f.p.DigestFile(context.Background(), src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if abs != filepath.Join(f.base, "sub", "f.txt") || d != want {
			t.Fatalf("%s: got %s %+v, want %+v", src, abs, d, want)
		}
		if d.SHA256 != "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03" {
			t.Fatalf("sha256 %s", d.SHA256)
		}
	}
}

func TestHostSourceRejections(t *testing.T) {
	f := newHostFixture(t)
	mustWrite(t, filepath.Join(f.base, "real", "f"), "x")
	mustWrite(t, filepath.Join(f.other, "o"), "outside")
	mustSymlink(t, "real/f", filepath.Join(f.base, "leaf"))
	mustSymlink(t, "real", filepath.Join(f.base, "ldir"))
	ctx := context.Background()

	_, _, err := f.p.DigestFile(ctx, "leaf")
	_ = wantSourceErr(t, err, sandbox.CodeLocalFileReadError, sandbox.ReasonSymlinkNotSupported, "leaf")
	_, _, err = f.p.DigestFile(ctx, "ldir/f")
	_ = wantSourceErr(t, err, sandbox.CodeLocalFileReadError, sandbox.ReasonSymlinkNotSupported, "ldir")
	_, _, err = f.p.DigestFile(ctx, "real/missing")
	_ = wantSourceErr(t, err, sandbox.CodeLocalFileReadError, sandbox.ReasonPathNotFound, "real/missing")
	_, _, err = f.p.DigestFile(ctx, "nodir/f")
	_ = wantSourceErr(t, err, sandbox.CodeLocalFileReadError, sandbox.ReasonPathNotFound, "nodir")

	se := wantSourceErr(t, errOf(f.p.DigestFile(ctx, "real")), sandbox.CodeLocalFileReadError, "", "")
	if se.Context["file_type"] != "directory" {
		t.Fatalf("file_type = %v", se.Context["file_type"])
	}
	for _, src := range []string{"../other/o", filepath.Join(f.other, "o")} {
		se = wantSourceErr(t, errOf(f.p.DigestFile(ctx, src)), sandbox.CodeLocalFileReadError, sandbox.ReasonOutsideBaseDir, "")
		if se.Context["base_dir"] != f.base || se.Context["extra_path_grants"] != nil {
			t.Fatalf("context = %v", se.Context)
		}
		if se.Error() != "failed to read local file artifact: "+src || se.Context["src"] != src {
			t.Fatalf("message %q context %v", se.Error(), se.Context)
		}
	}
	if _, err := f.p.Resolve("../other/o"); err == nil {
		t.Fatal("Resolve accepted a path outside base_dir")
	}
	if abs, err := f.p.Resolve("a/../b"); err != nil || abs != filepath.Join(f.base, "b") {
		t.Fatalf("Resolve = %q, %v", abs, err)
	}
}

func errOf(_ string, _ checksum.FileDigest, err error) error { return err }

func TestGrantAllowsOutside(t *testing.T) {
	f := newHostFixture(t)
	mustWrite(t, filepath.Join(f.other, "o"), "outside")
	mustWrite(t, filepath.Join(f.top, "third", "t"), "t")
	hostRoot := f.other
	f.p.Grants = []posix.PathGrant{{Path: "/mnt/other", HostPath: &hostRoot, ReadOnly: true}}
	ctx := context.Background()
	for _, src := range []string{"../other/o", filepath.Join(f.other, "o")} {
		_, d, err := f.p.DigestFile(ctx, src)
		if err != nil || d != checksum.DigestBytesWith([]byte("outside"), 0) {
			t.Fatalf("%s: %+v %v", src, d, err)
		}
	}
	se := wantSourceErr(t, errOf(f.p.DigestFile(ctx, "../third/t")), sandbox.CodeLocalFileReadError, sandbox.ReasonOutsideBaseDir, "")
	if !reflect.DeepEqual(se.Context["extra_path_grants"], []string{"/mnt/other"}) {
		t.Fatalf("extra_path_grants = %v", se.Context["extra_path_grants"])
	}
}

func TestOpenFileDetectsSwap(t *testing.T) {
	f := newHostFixture(t)
	mustWrite(t, filepath.Join(f.base, "d", "f"), "original")
	mustWrite(t, filepath.Join(f.other, "f"), "planted")
	ctx := context.Background()
	defer func() { testHookBeforeOpen = nil }()

	// A directory replaced by a symlink between the lstat walk and the open.
	testHookBeforeOpen = func(string) {
		testHookBeforeOpen = nil
		if err := os.Rename(filepath.Join(f.base, "d"), filepath.Join(f.base, "d.old")); err != nil {
			t.Error(err)
		}
		mustSymlink(t, f.other, filepath.Join(f.base, "d"))
	}
	_, _, err := f.p.OpenFile(ctx, "d/f")
	_ = wantSourceErr(t, err, sandbox.CodeLocalFileReadError, sandbox.ReasonSymlinkNotSupported, "d")

	// A directory replaced by another real directory.
	if err := os.Remove(filepath.Join(f.base, "d")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(f.base, "d.old"), filepath.Join(f.base, "d")); err != nil {
		t.Fatal(err)
	}
	testHookBeforeOpen = func(string) {
		testHookBeforeOpen = nil
		if err := os.Rename(filepath.Join(f.base, "d"), filepath.Join(f.base, "d.old")); err != nil {
			t.Error(err)
		}
		mustWrite(t, filepath.Join(f.base, "d", "f"), "swapped")
	}
	_, _, err = f.p.OpenFile(ctx, "d/f")
	_ = wantSourceErr(t, err, sandbox.CodeLocalFileReadError, sandbox.ReasonPathChangedDuringCopy, "d")

	// Without interference the file opens and reads back.
	file, fi, err := f.p.OpenFile(ctx, "d/f")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	b, _ := io.ReadAll(file)
	if string(b) != "swapped" || fi.Size() != 7 || file.Name() != filepath.Join(f.base, "d", "f") {
		t.Fatalf("read %q size %d name %s", b, fi.Size(), file.Name())
	}
}

func TestCancelledContext(t *testing.T) {
	f := newHostFixture(t)
	mustWrite(t, filepath.Join(f.base, "f"), "x")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := f.p.DigestFile(ctx, "f"); !errors.Is(err, context.Canceled) {
		t.Fatalf("DigestFile with cancelled ctx: %v", err)
	}
	if _, err := f.p.ScanDir(ctx, "."); !errors.Is(err, context.Canceled) {
		t.Fatalf("ScanDir with cancelled ctx: %v", err)
	}
}
