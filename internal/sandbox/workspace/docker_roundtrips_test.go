package workspace_test

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"io/fs"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// roundTrips is one provider operation measured against the daemon: the
// API requests it made and the file helper processes it ran.
type roundTrips struct {
	requests, helper int
	routes           []string
}

// measure runs op on the engine eng counts with and returns its round trips.
func measure(t *testing.T, c *docker.RequestCounter, op func() error) roundTrips {
	t.Helper()
	c.Reset()
	h := docker.HelperCalls()
	if err := op(); err != nil {
		t.Fatal(err)
	}
	return roundTrips{requests: c.Total(), helper: int(docker.HelperCalls() - h), routes: c.Routes()}
}

// The daemon round trips of the entry operations the provider makes, each
// as one provider process makes it: the workspace opened once, then the
// entry written or observed. Fresh engines stand for a new provider
// process (an API version to negotiate, a helper not yet known to answer);
// warm ones for the second and later entries of the same apply. The bounds
// are the design's (design/performance.md, Docker): adding a round trip to
// any of these paths fails here.
func TestDockerRoundTrips(t *testing.T) {
	dockertest.Require(t)
	ctx := context.Background()
	newEngine := func() (*workspace.Engine, *docker.RequestCounter) {
		c := &docker.RequestCounter{}
		return workspace.New(workspace.Config{LocalBaseDir: t.TempDir(), WorkingDir: t.TempDir(),
			DockerRequests: c}), c
	}
	eng, c := newEngine()
	w, err := eng.CreateDocker(ctx, spec.Docker{Image: dockertest.Image, PullPolicy: "never"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Destroy(context.Background(), w.ID, false) })
	meta := workspace.Meta{Perm: 0o640}
	write := func(e *workspace.Engine, rel string) func() error {
		return func() error {
			ws, err := e.Open(ctx, w.ID)
			if err == nil {
				_, err = ws.WriteFile(ctx, rel, strings.NewReader("hello\n"), meta, "")
			}
			return err
		}
	}
	refresh := func(e *workspace.Engine, rel string) func() error {
		return func() error {
			ws, err := e.Open(ctx, w.ID)
			if err == nil {
				var st workspace.EntryState
				if st, err = ws.Stat(ctx, rel, true); err == nil && (!st.Exists || st.SHA256 == "") {
					t.Fatalf("refresh of %s saw %+v", rel, st)
				}
			}
			return err
		}
	}
	dir := func(e *workspace.Engine, rel string) func() error {
		return func() error {
			ws, err := e.Open(ctx, w.ID)
			if err == nil {
				err = ws.ApplyDir(ctx, rel, workspace.Meta{Perm: 0o750})
			}
			return err
		}
	}
	check := func(e *workspace.Engine, rel string) func() error {
		return func() error {
			ws, err := e.Open(ctx, w.ID)
			if err == nil {
				err = ws.CheckEntryPath(ctx, rel, workspace.PathFile)
			}
			return err
		}
	}
	// The workspace resource's refresh: open, describe, root owner, endpoints.
	refreshWorkspace := func() error {
		ws, err := eng.Open(ctx, w.ID)
		if err == nil {
			_, err = eng.DescribeDocker(ctx, ws)
		}
		if err == nil {
			_, err = ws.RootOwner(ctx, "")
		}
		if err == nil {
			_, err = eng.Endpoints(ctx, ws, nil)
		}
		return err
	}
	cases := []struct {
		name    string
		op      func() error
		maxReqs int
	}{
		{"write one file (warm)", write(eng, "a.txt"), 3},
		{"write a second file (warm)", write(eng, "b.txt"), 3},
		{"plan-time path check of a file (warm)", check(eng, "c.txt"), 3},
		{"refresh one file (warm)", refresh(eng, "a.txt"), 3},
		{"create one dir (warm)", dir(eng, "d/e"), 3},
		{"refresh the workspace (first in the process: docker info once)", refreshWorkspace, 5},
	}
	for _, tc := range cases {
		rt := measure(t, c, tc.op)
		t.Logf("%s: %d API requests, %d helper processes: %s", tc.name, rt.requests, rt.helper, strings.Join(rt.routes, ", "))
		if rt.requests > tc.maxReqs {
			t.Errorf("%s: %d API requests, want at most %d", tc.name, rt.requests, tc.maxReqs)
		}
	}
	for _, fresh := range []struct {
		name string
		op   func(*workspace.Engine, string) func() error
		max  int
	}{
		{"refresh one file (new process)", refresh, 4},
		{"plan-time path check of a file (new process)", check, 4},
		{"write one file (new process)", write, 6},
	} {
		e, fc := newEngine()
		rt := measure(t, fc, fresh.op(e, "a.txt"))
		t.Logf("%s: %d API requests, %d helper processes: %s", fresh.name, rt.requests, rt.helper, strings.Join(rt.routes, ", "))
		if rt.requests > fresh.max {
			t.Errorf("%s: %d API requests, want at most %d", fresh.name, rt.requests, fresh.max)
		}
	}
	checkEffects(ctx, t, eng, w.ID)
}

// checkEffects reads back what the measured operations made, and checks
// that the one-call paths keep the engine's guarantees: a file whose group
// cannot be applied is not left behind, and the helper, on its read-only
// volume, cannot be deleted from inside the container.
func checkEffects(ctx context.Context, t *testing.T, eng *workspace.Engine, id string) {
	t.Helper()
	ws, err := eng.Open(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	st, err := ws.Stat(ctx, "b.txt", true)
	if err != nil || st.Info.Perm.Perm() != 0o640 || st.SHA256 != "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03" {
		t.Fatalf("b.txt: %+v %v", st, err)
	}
	if st, err = ws.Stat(ctx, "d/e", false); err != nil || !st.Info.IsDir || st.Info.Perm.Perm() != 0o750 {
		t.Fatalf("d/e: %+v %v", st, err)
	}
	if st, err = ws.Stat(ctx, "d", false); err != nil || st.Info.Perm.Perm() != 0o755 {
		t.Fatalf("d: %+v %v", st, err)
	}
	if _, err := ws.WriteFile(ctx, "s.bin", strings.NewReader("x"), workspace.Meta{Perm: fs.ModeSetuid | 0o755}, ""); err != nil {
		t.Fatal(err)
	}
	if err := ws.ApplyDir(ctx, "sg", workspace.Meta{Perm: fs.ModeSetgid | fs.ModeSticky | 0o775}); err != nil {
		t.Fatal(err)
	}
	// Stat shows the permission bits only; the special bits are read in the container.
	res, err := ws.Exec(ctx, sandbox.ExecRequest{Argv: []string{"stat", "-c", "%a %n", "s.bin", "sg"}})
	if err != nil || string(res.Stdout) != "4755 s.bin\n3775 sg\n" {
		t.Fatalf("special bits: %q %q %v", res.Stdout, res.Stderr, err)
	}
	if _, err := ws.WriteFile(ctx, "g.txt", strings.NewReader("x"), workspace.Meta{Perm: 0o600, Group: "no-such-group"}, ""); err == nil {
		t.Fatal("a write with an unknown group succeeded")
	}
	if err := ws.ApplyDir(ctx, "g", workspace.Meta{Perm: 0o700, Group: "no-such-group"}); err == nil {
		t.Fatal("a directory with an unknown group succeeded")
	}
	for _, rel := range []string{"g.txt", "g"} {
		if st, err := ws.Stat(ctx, rel, false); err != nil || st.Exists {
			t.Fatalf("%s left behind after its group failed: %+v %v", rel, st, err)
		}
	}
	res, err = ws.Exec(ctx, sandbox.ExecRequest{Argv: []string{"rm", "-rf", "/.sandbox-fs-helper"}})
	if err != nil || res.ExitCode == 0 {
		t.Fatalf("removing the read-only helper succeeded: %+v %v", res, err)
	}
	fresh := workspace.New(workspace.Config{LocalBaseDir: t.TempDir(), WorkingDir: t.TempDir()})
	if ws, err = fresh.Open(ctx, id); err == nil {
		st, err = ws.Stat(ctx, "b.txt", true)
	}
	if err != nil || st.Size != 6 {
		t.Fatalf("refresh after an attempt to delete the helper: %+v %v", st, err)
	}
}
