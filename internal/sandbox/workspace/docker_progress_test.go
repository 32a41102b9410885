package workspace_test

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/progress"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// A tree copied into a container reports through the progress sink, as a
// local copy does: the summary at the end counts every file and byte of the
// tree, those streamed and those already in place.
func TestDockerTreeCopyProgress(t *testing.T) {
	dockertest.Require(t)
	ctx := context.Background()
	wd := t.TempDir()
	var total int64
	for i, name := range []string{"a.txt", "sub/b.txt", "sub/c.bin"} {
		body := strings.Repeat("x", 1000*(i+1))
		total += int64(len(body))
		p := filepath.Join(wd, "tree", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var (
		mu      sync.Mutex
		reports []progress.Report
	)
	progress.SetSink(func(_ context.Context, r progress.Report) {
		mu.Lock()
		reports = append(reports, r)
		mu.Unlock()
	})
	t.Cleanup(func() { progress.SetSink(nil) })
	eng := workspace.New(workspace.Config{LocalBaseDir: t.TempDir(), WorkingDir: wd})
	w, err := eng.CreateDocker(ctx, spec.Docker{Image: dockertest.Image, PullPolicy: "never"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Destroy(context.Background(), w.ID, false) })
	for round, what := range []string{"first copy", "unchanged copy"} {
		if _, err := w.SyncLocalDir(ctx, "copy", "tree", workspace.Meta{Perm: 0o755}, nil); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		var done []progress.Report
		for _, r := range reports {
			if r.Op == "copy" && r.Done {
				done = append(done, r)
			}
		}
		mu.Unlock()
		if len(done) != round+1 {
			t.Fatalf("%s: %d copy summaries, want %d: %+v", what, len(done), round+1, reports)
		}
		s := done[round]
		if s.What != "tree" || s.Files != 3 || s.TotalFiles != 3 || s.Bytes != total || s.TotalBytes != total {
			t.Fatalf("%s: summary %+v, want 3 files and %d bytes", what, s, total)
		}
		t.Logf("%s: %s", what, s)
	}
	st, err := w.Stat(ctx, "copy/sub/c.bin", true)
	if err != nil || st.Size != 3000 {
		t.Fatalf("copy/sub/c.bin: %+v %v", st, err)
	}
}
