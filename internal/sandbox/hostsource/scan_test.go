//go:build linux

package hostsource

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/need"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/checksum"
)

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// scanFixture writes a small tree below base/src with a fifo and an empty
// directory, and returns the files expected from ScanDir.
func scanFixture(t *testing.T, f hostFixture) []checksum.TreeFile {
	t.Helper()
	src := filepath.Join(f.base, "src")
	content := map[string]string{
		"a.txt":       "alpha\n",
		"a/b.txt":     "bravo\n",
		"a/c/d.bin":   strings.Repeat("d", 3*checksum.DigestChunkSize+5),
		"B":           "",
		"with space":  "space\n",
		"z/deep/y/x":  "x",
		"a/c/exec.sh": "#!/bin/sh\n",
	}
	for rel, c := range content {
		mustWrite(t, filepath.Join(src, rel), c)
	}
	if err := os.Chmod(filepath.Join(src, "a/c/exec.sh"), 0o750); err != nil {
		t.Fatal(err)
	}
	mustMkdir(t, filepath.Join(src, "empty", "dir"))
	if err := syscall.Mkfifo(filepath.Join(src, "a", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Byte order: "B" < "a.txt" < "a/b.txt" ('.' < '/') < ... < "z/deep/y/x".
	order := []string{"B", "a.txt", "a/b.txt", "a/c/d.bin", "a/c/exec.sh", "with space", "z/deep/y/x"}
	var want []checksum.TreeFile
	for _, rel := range order {
		perm := fs.FileMode(0o644)
		if rel == "a/c/exec.sh" {
			perm = 0o750
		}
		want = append(want, checksum.TreeFile{Rel: rel, Size: int64(len(content[rel])), SHA256: sha256Hex(content[rel]), Perm: perm})
	}
	return want
}

func TestScanDirTree(t *testing.T) {
	f := newHostFixture(t)
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	want := scanFixture(t, f)
	for _, workers := range []int{0, 1, 16} {
		f.p.LocalDirFiles = workers
		td, err := f.p.ScanDir(context.Background(), "src")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(td.Files, want) {
			t.Fatalf("workers %d: files\n%+v\nwant\n%+v", workers, td.Files, want)
		}
		var lines strings.Builder
		var total int64
		for _, w := range want {
			lines.WriteString(w.SHA256 + "  " + w.Rel + "\n")
			total += w.Size
		}
		if td.SHA256 != sha256Hex(lines.String()) || td.TotalBytes != total || td.Root != filepath.Join(f.base, "src") {
			t.Fatalf("tree digest %s total %d root %s", td.SHA256, td.TotalBytes, td.Root)
		}
	}
}

// TestScanDirMatchesShellPipeline checks the documented reproduction command.
func TestScanDirMatchesShellPipeline(t *testing.T) {
	need.Tools(t, "the shell pipeline comparison", "sh", "find", "sort", "xargs", "sha256sum")
	f := newHostFixture(t)
	scanFixture(t, f)
	td, err := f.p.ScanDir(context.Background(), "src")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", `find . -type f -printf '%P\n' | LC_ALL=C sort | xargs -r -d '\n' sha256sum | sha256sum`)
	cmd.Dir = td.Root
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(out))[0]; got != td.SHA256 {
		t.Fatalf("shell pipeline %s, ScanDir %s", got, td.SHA256)
	}
}

func TestScanDirSymlinks(t *testing.T) {
	cases := map[string]func(t *testing.T, src string){
		"a/b/c/link": func(t *testing.T, src string) { mustSymlink(t, "../../../ok", filepath.Join(src, "a/b/c/link")) },
		"a/dirlink":  func(t *testing.T, src string) { mustSymlink(t, "/", filepath.Join(src, "a/dirlink")) },
		"dangling":   func(t *testing.T, src string) { mustSymlink(t, "nowhere", filepath.Join(src, "dangling")) },
	}
	for child, plant := range cases {
		t.Run(child, func(t *testing.T) {
			f := newHostFixture(t)
			src := filepath.Join(f.base, "src")
			mustWrite(t, filepath.Join(src, "ok"), "ok")
			mustMkdir(t, filepath.Join(src, "a/b/c"))
			plant(t, src)
			_, err := f.p.ScanDir(context.Background(), "src")
			_ = wantSourceErr(t, err, sandbox.CodeLocalDirReadError, sandbox.ReasonSymlinkNotSupported, child)
		})
	}
}

func TestScanDirRootChecks(t *testing.T) {
	f := newHostFixture(t)
	mustWrite(t, filepath.Join(f.base, "real", "f"), "x")
	mustWrite(t, filepath.Join(f.other, "o"), "x")
	mustSymlink(t, "real", filepath.Join(f.base, "link"))
	ctx := context.Background()
	_, err := f.p.ScanDir(ctx, "link")
	se := wantSourceErr(t, err, sandbox.CodeLocalDirReadError, sandbox.ReasonSymlinkNotSupported, "link")
	if se.Error() != "failed to read local dir artifact: link" {
		t.Fatalf("message %q", se.Error())
	}
	_, err = f.p.ScanDir(ctx, "../other")
	_ = wantSourceErr(t, err, sandbox.CodeLocalDirReadError, sandbox.ReasonOutsideBaseDir, "")
	_, err = f.p.ScanDir(ctx, "missing")
	_ = wantSourceErr(t, err, sandbox.CodeLocalDirReadError, sandbox.ReasonPathNotFound, "missing")
	_, err = f.p.ScanDir(ctx, "real/f")
	if se = wantSourceErr(t, err, sandbox.CodeLocalDirReadError, "", ""); se.Context["file_type"] != "regular file" {
		t.Fatalf("context %v", se.Context)
	}
	if err := os.Remove(filepath.Join(f.base, "link")); err != nil {
		t.Fatal(err)
	}
	td, err := f.p.ScanDir(ctx, ".")
	if err != nil || len(td.Files) != 1 || td.Files[0].Rel != "real/f" {
		t.Fatalf("scan of base dir: %+v %v", td, err)
	}
}

func TestOpenTreeFile(t *testing.T) {
	f := newHostFixture(t)
	scanFixture(t, f)
	ctx := context.Background()
	td, err := f.p.ScanDir(ctx, "src")
	if err != nil {
		t.Fatal(err)
	}
	for _, tf := range td.Files {
		file, err := f.p.OpenTreeFile(ctx, td, tf.Rel)
		if err != nil {
			t.Fatal(err)
		}
		sum, n, err := sha256Reader(ctx, file)
		file.Close()
		if err != nil || sum != tf.SHA256 || n != tf.Size {
			t.Fatalf("%s: %s %d %v", tf.Rel, sum, n, err)
		}
	}
	for _, bad := range []string{"", ".", "../x", "/etc/passwd", "a/../a.txt", "a"} {
		if file, err := f.p.OpenTreeFile(ctx, td, bad); err == nil {
			file.Close()
			t.Fatalf("OpenTreeFile(%q) succeeded", bad)
		}
	}
	// A file replaced by a symlink after the scan is refused.
	victim := filepath.Join(td.Root, "a", "b.txt")
	if err := os.Remove(victim); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, f.other, victim)
	_, err = f.p.OpenTreeFile(ctx, td, "a/b.txt")
	_ = wantSourceErr(t, err, sandbox.CodeLocalDirReadError, sandbox.ReasonSymlinkNotSupported, "src/a/b.txt")
	// A hand-built tree needs only Root.
	file, err := f.p.OpenTreeFile(ctx, checksum.TreeDigest{Root: td.Root}, "a.txt")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(file)
	file.Close()
	if string(b) != "alpha\n" {
		t.Fatalf("read %q", b)
	}
}
