package workspace_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// Terraform refreshes, writes and removes the entries of one workspace
// concurrently, each request opening the workspace itself. Those
// concurrent opens share their container inspects and the entry steps
// share helper processes (one batch each), so N entries cost a few daemon
// requests, not 3N; each entry still gets its own answer, and one entry's
// failure stays its own.
func TestDockerConcurrentEntriesCoalesce(t *testing.T) {
	dockertest.Require(t)
	ctx := context.Background()
	c := &docker.RequestCounter{}
	eng := workspace.New(workspace.Config{LocalBaseDir: t.TempDir(), WorkingDir: t.TempDir(), DockerRequests: c})
	w, err := eng.CreateDocker(ctx, spec.Docker{Image: dockertest.Image, PullPolicy: "never"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Destroy(context.Background(), w.ID, false) })
	const n, bad = 60, 23
	each := func(op func(i int) error) []error {
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = op(i)
			}()
		}
		wg.Wait()
		return errs
	}
	rel := func(i int) string { return fmt.Sprintf("f/%d.txt", i) }
	phase := func(name string, max int, op func(i int) error) []error {
		t.Helper()
		c.Reset()
		errs := each(op)
		t.Logf("%s of %d entries: %d API requests: %s", name, n, c.Total(), strings.Join(c.Routes(), ", "))
		if c.Total() > max {
			t.Errorf("%s of %d entries took %d API requests, want at most %d", name, n, c.Total(), max)
		}
		return errs
	}
	// A third of a request per entry at most: with one request per entry
	// (or three, opened and run alone) this fails.
	limit := n / 3
	errs := phase("write", limit, func(i int) error {
		ws, err := eng.Open(ctx, w.ID)
		if err != nil {
			return err
		}
		m := workspace.Meta{Perm: 0o640}
		if i == bad {
			m.Owner = "no-such-user-batch"
		}
		_, err = ws.WriteFile(ctx, rel(i), strings.NewReader(fmt.Sprintf("entry %d\n", i)), m, "")
		return err
	})
	for i, err := range errs {
		if (i == bad) != (err != nil) {
			t.Fatalf("write %d: %v (only %d must fail)", i, err, bad)
		}
	}
	if !strings.Contains(errs[bad].Error(), "no-such-user-batch") {
		t.Fatalf("the failed write does not say why: %v", errs[bad])
	}
	states := make([]workspace.EntryState, n)
	errs = phase("refresh", limit, func(i int) error {
		ws, err := eng.Open(ctx, w.ID)
		if err == nil {
			states[i], err = ws.Stat(ctx, rel(i), true)
		}
		return err
	})
	for i, err := range errs {
		want := sha256Hex(fmt.Sprintf("entry %d\n", i))
		switch {
		case err != nil:
			t.Fatalf("refresh %d: %v", i, err)
		case i == bad && states[i].Exists:
			t.Fatalf("the failed entry was left behind: %+v", states[i])
		case i != bad && (states[i].SHA256 != want || states[i].Info.Perm != 0o640):
			t.Fatalf("refresh %d saw %+v, want sha256 %s and mode 0640", i, states[i], want)
		}
	}
	errs = phase("removal", limit, func(i int) error {
		ws, err := eng.Open(ctx, w.ID)
		if err == nil {
			err = ws.RemoveFile(ctx, rel(i))
		}
		return err
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("remove %d: %v", i, err)
		}
	}
	out, err := dockertest.Exec(ctx, w.ContainerID, "sh", "-c", "ls -A /workspace/f | wc -l")
	if err != nil || strings.TrimSpace(out) != "0" {
		t.Fatalf("files left after the removal: %q, %v", out, err)
	}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
