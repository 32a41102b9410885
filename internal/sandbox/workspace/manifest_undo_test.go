package workspace

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

// A failed first apply is undone: the files of the entries it finished and
// their directories go; the obstruction it failed on and a file it never
// wrote stay.
func TestUndoManifestAfterFailedApply(t *testing.T) {
	eng, _ := newEngine(t)
	ctx := context.Background()
	w, err := eng.CreateLocal(ctx, LocalSpec{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Parse([]byte(`{"entries": {
		"a.txt": {"type": "file", "content": "a"},
		"b": {"type": "dir", "children": {"c.txt": {"type": "file", "content": "c"}}},
		"m": {"type": "file", "content": "m"},
		"z.txt": {"type": "file", "content": "z"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := eng.PlanManifest(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	// Stood there after the plan: a directory where file "m" goes, and a
	// file of the user's where "z.txt" goes, which the apply never reaches.
	if err := os.MkdirAll(filepath.Join(w.Root, "m", "own"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.Root, "z.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ApplyManifest(ctx, plan); err == nil {
		t.Fatal("applying over a directory succeeded")
	}
	if b, err := os.ReadFile(filepath.Join(w.Root, "b", "c.txt")); err != nil || string(b) != "c" {
		t.Fatalf("the entries before the failure were not applied: %q %v", b, err)
	}
	if _, err := w.UndoManifest(ctx, plan); err != nil {
		t.Fatal(err)
	}
	var left []string
	_ = filepath.Walk(w.Root, func(p string, _ os.FileInfo, _ error) error {
		if rel, _ := filepath.Rel(w.Root, p); rel != "." {
			left = append(left, rel)
		}
		return nil
	})
	if want := []string{"m", "m/own", "z.txt"}; !reflect.DeepEqual(left, want) {
		t.Errorf("left after the undo: %v, want %v", left, want)
	}
	if b, _ := os.ReadFile(filepath.Join(w.Root, "z.txt")); string(b) != "mine" {
		t.Errorf("the user's z.txt = %q", b)
	}
}

// After a failed apply the record keeps the last apply's mounts it did not
// unmount; after the stale ones were unmounted, only what the plan mounted.
func TestMountAppliedAfterFailedApply(t *testing.T) {
	kept := MountApplied{SessionID: "k", Entry: `{"type":"s3_mount"}`}
	old := MountApplied{SessionID: "o", Entry: `{"type":"s3_mount","prefix":"x"}`}
	p := &ManifestPlan{
		Entries:    []PlannedEntry{{Path: "kept", Mount: &mount.Mount{Type: "s3_mount"}, MountSession: "k", MountEntry: kept.Entry}},
		MountPrior: map[string]MountApplied{"kept": kept, "old": old},
	}
	if got := p.MountApplied(); !reflect.DeepEqual(got, map[string]MountApplied{"kept": kept, "old": old}) {
		t.Errorf("before the stale mount was unmounted: %v", got)
	}
	p.progress.unmounted("old")
	if got := p.MountApplied(); !reflect.DeepEqual(got, map[string]MountApplied{"kept": kept}) {
		t.Errorf("after the stale mount was unmounted: %v", got)
	}
}
