package workspace

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSnapshotRestoreLocal(t *testing.T) {
	eng, wd := newEngine(t)
	ctx := context.Background()
	w, err := eng.CreateLocal(ctx, LocalSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Backend.WriteFile(ctx, "out/result.txt", strings.NewReader("42\n"), 0o640, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Backend.WriteFile(ctx, "tmp.key", strings.NewReader("secret"), 0o600, ""); err != nil {
		t.Fatal(err)
	}
	res, err := w.Snapshot(ctx, SnapshotRequest{BasePath: "snaps", SnapshotID: "s1", Exclude: []string{"tmp.key"}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := eng.ReadArchive(context.Background(), res.Path)
	if err != nil || !st.Exists || st.SHA256 != res.SHA256 || res.Path != "snaps/s1.tar" {
		t.Fatalf("archive %+v (%v), result %+v", st, err, res)
	}
	if _, err := os.Stat(filepath.Join(wd, "snaps", "s1.tar")); err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Files["tmp.key"]; ok || res.Files["out/result.txt"] == "" || res.Fingerprint == "" {
		t.Fatalf("files %v fingerprint %q", res.Files, res.Fingerprint)
	}
	w2, err := eng.CreateLocal(ctx, LocalSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w2.Restore(ctx, res.Path, "0000"); !errors.Is(err, ErrArchiveChanged) {
		t.Fatalf("a wrong sha256 was accepted: %v", err)
	}
	if _, err := w2.Restore(ctx, res.Path, res.SHA256); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(w2.Root, "out/result.txt"))
	if err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("restored file: %v %v", fi, err)
	}
	if _, err := os.Lstat(filepath.Join(w2.Root, "tmp.key")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("excluded file restored: %v", err)
	}
	if _, err := eng.Open(ctx, w2.ID); err != nil {
		t.Fatalf("the restored workspace is no longer found: %v", err)
	}
	if err := eng.RemoveArchive(context.Background(), res.Path, res.SHA256); err != nil {
		t.Fatal(err)
	}
	if st, _ := eng.ReadArchive(context.Background(), res.Path); st.Exists {
		t.Fatal("archive left after RemoveArchive")
	}
}

func TestRestoreRefusesUnsafeArchiveWritingNothing(t *testing.T) {
	eng, wd := newEngine(t)
	ctx := context.Background()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(tw.WriteHeader(&tar.Header{Name: "./first.txt", Typeflag: tar.TypeReg, Mode: 0o644, Size: 1}))
	_, err := tw.Write([]byte("x"))
	must(err)
	must(tw.WriteHeader(&tar.Header{Name: "./link", Typeflag: tar.TypeSymlink, Linkname: "/etc"}))
	must(tw.Close())
	p := filepath.Join(wd, "evil.tar")
	must(os.WriteFile(p, buf.Bytes(), 0o644))
	sum := sha256.Sum256(buf.Bytes())
	w, err := eng.CreateLocal(ctx, LocalSpec{})
	must(err)
	if _, err := w.Restore(ctx, "evil.tar", hex.EncodeToString(sum[:])); err == nil || !strings.Contains(err.Error(), `"./link"`) {
		t.Fatalf("Restore: %v, want a refusal naming ./link", err)
	}
	if entries, _ := os.ReadDir(w.Root); len(entries) != 0 {
		t.Fatalf("a refused restore wrote %v", entries)
	}
}

func TestExportGlobs(t *testing.T) {
	for _, c := range []struct {
		glob, rel string
		want      bool
	}{
		{"output/**", "output/a.txt", true}, {"output/**", "output/x/y/z", true}, {"output/**", "outputs/a", false},
		{"logs/*.log", "logs/run.log", true}, {"logs/*.log", "logs/sub/run.log", false}, {"**/*.json", "a/b/c.json", true},
		{"**/*.json", "c.json", true}, {"x", "x/y", false},
	} {
		if got := matchAny([]string{c.glob}, c.rel); got != c.want {
			t.Errorf("%s ~ %s = %v, want %v", c.glob, c.rel, got, c.want)
		}
	}
	for _, bad := range []string{"/abs/*", "../x", "a/../../b", "[", ""} {
		if ValidGlob(bad) == nil {
			t.Errorf("ValidGlob(%q) accepted", bad)
		}
	}
}
