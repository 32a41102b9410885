package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

func newEngine(t *testing.T) (*Engine, string) {
	t.Helper()
	dir := t.TempDir()
	wd := filepath.Join(dir, "wd")
	if err := os.MkdirAll(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	return New(Config{LocalBaseDir: filepath.Join(dir, "base"), WorkingDir: wd}), wd
}

func TestCreateOpenDestroy(t *testing.T) {
	eng, _ := newEngine(t)
	ctx := context.Background()
	w, err := eng.CreateLocal(ctx, LocalSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if !ValidID(w.ID) || w.Root != filepath.Join(eng.Config().LocalBaseDir, w.UUID) || w.ID != LocalID(w.UUID, w.Root) {
		t.Fatalf("unexpected workspace %+v", w)
	}
	if fi, err := os.Stat(w.Root); err != nil || !fi.IsDir() {
		t.Fatalf("root not created: %v", err)
	}
	if _, err := eng.Open(ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	if err := eng.Destroy(ctx, w.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w.Root); !os.IsNotExist(err) {
		t.Fatalf("root still there after destroy: %v", err)
	}
	if _, err := eng.Open(ctx, w.ID); !errors.Is(err, ErrWorkspaceGone) {
		t.Fatalf("Open after destroy = %v, want ErrWorkspaceGone", err)
	}
}

func TestVanishedWorkspaceIsGone(t *testing.T) {
	eng, _ := newEngine(t)
	ctx := context.Background()
	w, err := eng.CreateLocal(ctx, LocalSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(w.Root); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Open(ctx, w.ID); !errors.Is(err, ErrWorkspaceGone) {
		t.Fatalf("Open of a vanished workspace = %v, want ErrWorkspaceGone", err)
	}
}

func TestCopyHostFileChangedSincePlan(t *testing.T) {
	eng, wd := newEngine(t)
	ctx := context.Background()
	w, err := eng.CreateLocal(ctx, LocalSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wd, "src.txt"), []byte("planned"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, d, err := eng.HostSources().DigestFile(ctx, "src.txt")
	if err != nil {
		t.Fatal(err)
	}
	// Edited between plan and apply.
	if err := os.WriteFile(filepath.Join(wd, "src.txt"), []byte("edited!"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = w.CopyHostFile(ctx, "dst.txt", "src.txt", Meta{Perm: 0o644}, d.SHA256)
	if !errors.Is(err, backend.ErrContentChanged) || !strings.Contains(err.Error(), "changed between plan and apply") {
		t.Fatalf("CopyHostFile = %v, want a changed-since-plan error", err)
	}
	if _, err := os.Lstat(filepath.Join(w.Root, "dst.txt")); !os.IsNotExist(err) {
		t.Fatalf("a refused copy left a file behind: %v", err)
	}
	entries, _ := os.ReadDir(w.Root)
	if len(entries) != 0 {
		t.Fatalf("a refused copy left %d entries behind", len(entries))
	}
}

func TestSyncLocalDirChangedSincePlanAndRemoveForeign(t *testing.T) {
	eng, wd := newEngine(t)
	ctx := context.Background()
	w, err := eng.CreateLocal(ctx, LocalSpec{})
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(wd, "tree")
	if err := os.MkdirAll(filepath.Join(src, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]string{"a.txt": "a", "sub/b.txt": "b"} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tree, err := eng.ScanLocalDir(ctx, "", "tree")
	if err != nil {
		t.Fatal(err)
	}
	planned := SummarizeTree(tree)
	if err := os.WriteFile(filepath.Join(src, "sub/b.txt"), []byte("B!"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = w.SyncLocalDir(ctx, "copy", "tree", Meta{Perm: 0o755}, &planned)
	if !errors.Is(err, backend.ErrContentChanged) || !strings.Contains(err.Error(), "sub/b.txt changed after the plan") {
		t.Fatalf("SyncLocalDir = %v, want an error naming sub/b.txt", err)
	}
	// The edited file never lands, not even partly; no temporary is left.
	if _, err := os.Lstat(filepath.Join(w.Root, "copy/sub/b.txt")); !os.IsNotExist(err) {
		t.Fatalf("the edited file was written: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(w.Root, "copy/sub/.*")); len(left) != 0 {
		t.Fatalf("temporary files left behind: %v", left)
	}
	// A file added to the source after the plan is refused too.
	if err := os.WriteFile(filepath.Join(src, "sub/b.txt"), []byte("b"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "new.txt"), []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = w.SyncLocalDir(ctx, "copy", "tree", Meta{Perm: 0o755}, &planned)
	if err == nil || !strings.Contains(err.Error(), "new.txt was added to tree after the plan") {
		t.Fatalf("SyncLocalDir = %v, want an error naming new.txt", err)
	}
	if err := os.Remove(filepath.Join(src, "new.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "sub/b.txt"), []byte("B!"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Re-planned: applies; then foreign content survives destroy.
	tree, err = eng.ScanLocalDir(ctx, "", "tree")
	if err != nil {
		t.Fatal(err)
	}
	planned = SummarizeTree(tree)
	if _, err := w.SyncLocalDir(ctx, "copy", "tree", Meta{Perm: 0o755}, &planned); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(w.Root, "copy/sub/b.txt")); err != nil || string(b) != "B!" {
		t.Fatalf("copy/sub/b.txt = %q, %v", b, err)
	}
	if err := os.WriteFile(filepath.Join(w.Root, "copy/sub/agent-notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	warning, err := w.RemoveTree(ctx, "copy", []string{"a.txt", "sub/b.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(warning, "left in place") {
		t.Fatalf("warning = %q, want it to say the directory was left in place", warning)
	}
	if b, err := os.ReadFile(filepath.Join(w.Root, "copy/sub/agent-notes.txt")); err != nil || string(b) != "mine" {
		t.Fatalf("foreign file lost: %q, %v", b, err)
	}
	for _, gone := range []string{"copy/a.txt", "copy/sub/b.txt"} {
		if _, err := os.Lstat(filepath.Join(w.Root, gone)); !os.IsNotExist(err) {
			t.Fatalf("%s still there: %v", gone, err)
		}
	}
}

func TestVolumeTarget(t *testing.T) {
	for p, want := range map[string]string{
		"data": "/workspace/data", "a/b/": "/workspace/a/b", ".": "/workspace", "/mnt/x/": "/mnt/x",
		"/workspace/../etc": "/etc", "/workspace/data": "/workspace/data",
		"../x": "error escape_root", "a/../b": "error escape_root", `C:\data`: "error absolute", `\srv`: "error absolute",
	} {
		got, err := VolumeTarget("/workspace", p)
		var se *sandbox.Error
		if errors.As(err, &se) {
			got = "error " + se.Reason()
		} else if err != nil {
			got = "unexpected error " + err.Error()
		}
		if got != want {
			t.Errorf("VolumeTarget(%q) = %q, want %q", p, got, want)
		}
	}
}
