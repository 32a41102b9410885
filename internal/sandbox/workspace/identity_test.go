package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/local"
)

// A workspace is found from its id alone: another engine, with another
// working directory and local_base_dir and no file of the first, opens it,
// runs in it with its environment, and destroys it.
func TestOpenFromIDAlone(t *testing.T) {
	eng, _ := newEngine(t)
	ctx := context.Background()
	w, err := eng.CreateLocal(ctx, LocalSpec{Environment: map[string]string{"GREETING": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := newEngine(t)
	got, err := other.Open(ctx, w.ID)
	if err != nil {
		t.Fatalf("Open from another engine: %v", err)
	}
	if got.Root != w.Root || got.UUID != w.UUID || got.Environment["GREETING"] != "hi" {
		t.Fatalf("Open = %+v, want root %s and the environment", got, w.Root)
	}
	res, err := got.Exec(ctx, execReq("printf %s \"$GREETING\""))
	if err != nil || string(res.Stdout) != "hi" {
		t.Fatalf("Exec = %q, %v; want the workspace environment", res.Stdout, err)
	}
	if err := got.SetEnvironment(ctx, map[string]string{"GREETING": "hello"}); err != nil {
		t.Fatal(err)
	}
	if m, _ := local.ReadMarker(w.Root); m.Environment["GREETING"] != "hello" {
		t.Fatalf("marker after SetEnvironment = %+v", m)
	}
	entries, _ := os.ReadDir(w.Root)
	if len(entries) != 0 {
		t.Fatalf("the marker must not be a file in the root; found %d entries", len(entries))
	}
	if err := other.Destroy(ctx, w.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(w.Root); !os.IsNotExist(err) {
		t.Fatalf("root still there: %v", err)
	}
}

// A directory that is not the id's workspace is refused, never adopted,
// written into or deleted.
func TestForeignDirectoryIsNotAWorkspace(t *testing.T) {
	eng, _ := newEngine(t)
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "thesis.txt"), []byte("years of work"), 0o644); err != nil {
		t.Fatal(err)
	}
	id := LocalID("0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11", dir)
	if _, err := eng.Open(ctx, id); !errors.Is(err, ErrNotWorkspace) {
		t.Fatalf("Open of an unmarked directory = %v, want ErrNotWorkspace", err)
	}
	if _, err := eng.AdoptLocal(ctx, dir); err == nil || !strings.Contains(err.Error(), "not a workspace") {
		t.Fatalf("AdoptLocal of an unmarked directory = %v, want a refusal", err)
	}
	if err := eng.Destroy(ctx, id, false); !errors.Is(err, ErrNotOurs) {
		t.Fatalf("Destroy = %v, want ErrNotOurs", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "thesis.txt")); err != nil || string(b) != "years of work" {
		t.Fatalf("foreign file touched: %q, %v", b, err)
	}
	// Another workspace's root under this id is refused too.
	w, err := eng.CreateLocal(ctx, LocalSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Open(ctx, LocalID("0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11", w.Root)); !errors.Is(err, ErrNotWorkspace) {
		t.Fatalf("Open with another workspace's root = %v, want ErrNotWorkspace", err)
	}
}

// Of many creations racing for one root, exactly one wins.
func TestRacingClaimsOneWins(t *testing.T) {
	root := filepath.Join(t.TempDir(), "shared")
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			eng, _ := newEngine(t)
			_, errs[i] = eng.CreateLocal(context.Background(), LocalSpec{Root: root})
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		if err == nil {
			won++
		}
	}
	if won != 1 {
		t.Fatalf("%d of %d racing creations won (errors %v); want exactly 1", won, n, errs)
	}
}

// A root inside another workspace is refused, whichever configuration made
// that workspace.
func TestNestedRootRefused(t *testing.T) {
	eng, _ := newEngine(t)
	ctx := context.Background()
	outer, err := eng.CreateLocal(ctx, LocalSpec{Root: filepath.Join(t.TempDir(), "outer")})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := newEngine(t)
	_, err = other.CreateLocal(ctx, LocalSpec{Root: filepath.Join(outer.Root, "a", "inner")})
	if err == nil || !strings.Contains(err.Error(), "inside workspace "+outer.UUID) {
		t.Fatalf("nested create = %v, want a refusal naming the outer workspace", err)
	}
	if err := other.CheckNewLocalRoot(outer.Root); err == nil || !strings.Contains(err.Error(), "already is workspace") {
		t.Fatalf("CheckNewLocalRoot of a workspace root = %v", err)
	}
}

func TestParseID(t *testing.T) {
	u := "0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11"
	for _, tc := range []struct {
		in   string
		want Ref
		bad  string
	}{
		{in: "docker:" + u, want: Ref{Kind: "docker", UUID: u}},
		{in: "local:" + u + ":/srv/a b/c", want: Ref{Kind: "local", UUID: u, Root: "/srv/a b/c"}},
		{in: "local:" + u + ":/srv/x:y", want: Ref{Kind: "local", UUID: u, Root: "/srv/x:y"}},
		{in: u, want: Ref{UUID: u}},
		{in: "local:" + u + ":relative", bad: "absolute"},
		{in: "local:" + u + ":/", bad: "other than /"},
		{in: "local:" + u + ":/a/../b", bad: "clean"},
		{in: "docker:" + strings.ToUpper(u), bad: "UUID"},
		{in: "kube:" + u, bad: "unknown kind"},
		{in: "", bad: "not a workspace id"},
	} {
		got, err := ParseID(tc.in)
		if tc.bad != "" {
			if err == nil || !strings.Contains(err.Error(), tc.bad) {
				t.Errorf("ParseID(%q) = %+v, %v; want an error with %q", tc.in, got, err, tc.bad)
			}
			continue
		}
		if err != nil || got != tc.want || got.String() != tc.in {
			t.Errorf("ParseID(%q) = %+v (%q), %v; want %+v", tc.in, got, got.String(), err, tc.want)
		}
	}
}

func TestSplitEntryID(t *testing.T) {
	eng, _ := newEngine(t)
	w, err := eng.CreateLocal(context.Background(), LocalSpec{Root: filepath.Join(t.TempDir(), "ws root")})
	if err != nil {
		t.Fatal(err)
	}
	ws, rel, err := SplitEntryID(w.ID + "/conf/app.toml")
	if err != nil || ws != w.ID || rel != "conf/app.toml" {
		t.Fatalf("SplitEntryID = %q, %q, %v", ws, rel, err)
	}
	ws, rel, err = SplitEntryID("docker:0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11/a/b")
	if err != nil || ws != "docker:0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11" || rel != "a/b" {
		t.Fatalf("SplitEntryID docker = %q, %q, %v", ws, rel, err)
	}
	if _, _, err := SplitEntryID("local:0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11:/nowhere/x"); err == nil {
		t.Fatal("SplitEntryID of an unmarked root succeeded")
	}
}

func execReq(script string) sandbox.ExecRequest {
	return sandbox.ExecRequest{Argv: ShellArgv(script)}
}

func TestSymlinkToFilesystemRootRefused(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "rootlink")
	if err := os.Symlink("/", link); err != nil {
		t.Fatal(err)
	}
	if err := CheckLocalBaseDir(link); err == nil {
		t.Fatal("a local_base_dir that is / through a symlink was accepted")
	}
	if err := CheckLocalBaseDir(filepath.Join(dir, "base")); err != nil {
		t.Fatalf("an ordinary local_base_dir was refused: %v", err)
	}
	eng, _ := newEngine(t)
	if err := eng.CheckLocalRoot(link); err == nil {
		t.Fatal("a root that is / through a symlink was accepted")
	}
}
