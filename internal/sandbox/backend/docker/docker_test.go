package docker_test

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
)

// newWorkspace creates a container workspace removed when the test ends.
func newWorkspace(t *testing.T, mod func(*docker.Spec)) *docker.Backend {
	t.Helper()
	d := dockertest.Require(t)
	spec := docker.Spec{WorkspaceID: uuid.NewString(), Docker: spec.Docker{Image: dockertest.Image, PullPolicy: docker.PullNever, Root: "/workspace"}}
	if mod != nil {
		mod(&spec)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := d.Create(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Remove(context.Background(), b.ContainerID()); err != nil {
			t.Error(err)
		}
	})
	return b
}

func sh(t *testing.T, b *docker.Backend, script string) string {
	t.Helper()
	out, err := dockertest.Exec(context.Background(), b.ContainerID(), "sh", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

func TestDockerBackend_files(t *testing.T) {
	b := newWorkspace(t, nil)
	ctx := context.Background()
	res, err := b.WriteFile(ctx, "a/b/c.txt", strings.NewReader("hello"), 0o640, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Size != 5 || res.SHA256 != "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824" {
		t.Fatalf("write result %+v", res)
	}
	if got := sh(t, b, "cat /workspace/a/b/c.txt; echo; stat -c %a /workspace/a/b/c.txt /workspace/a"); got != "hello\n640\n755" {
		t.Fatalf("in the container: %q", got)
	}
	fi, err := b.Stat(ctx, "a/b/c.txt")
	if err != nil || !fi.IsRegular || fi.Perm != 0o640 || fi.Group != "root" {
		t.Fatalf("stat: %+v %v", fi, err)
	}
	if _, err := b.Stat(ctx, "missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("stat of a missing path: %v", err)
	}
	if err := b.Chmod(ctx, "a/b/c.txt", 0o600); err != nil {
		t.Fatal(err)
	}
	sum, n, err := b.HashFile(ctx, "a/b/c.txt")
	if err != nil || n != 5 || sum != res.SHA256 {
		t.Fatalf("hash: %s %d %v", sum, n, err)
	}
	files, err := b.WalkFiles(ctx, "a")
	if err != nil || len(files) != 1 || files[0].Rel != "b/c.txt" || files[0].Perm != 0o600 {
		t.Fatalf("walk: %+v %v", files, err)
	}
	// A checksum mismatch leaves nothing behind.
	if _, err := b.WriteFile(ctx, "a/b/c.txt", strings.NewReader("other"), 0o644, res.SHA256); !errors.Is(err, backend.ErrContentChanged) {
		t.Fatalf("mismatch: %v", err)
	}
	if got := sh(t, b, "cat /workspace/a/b/c.txt; ls -a /workspace/a/b | wc -l"); got != "hello3" {
		t.Fatalf("after a refused write: %q", got)
	}
	if err := b.RemoveAll(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if got := sh(t, b, "ls -A /workspace"); got != "" {
		t.Fatalf("after RemoveAll: %q", got)
	}
}

// A directory of the workspace replaced inside the container by a symlink
// to /etc never redirects a write, a chmod or a removal out of the root.
func TestDockerBackend_plantedSymlink(t *testing.T) {
	b := newWorkspace(t, nil)
	ctx := context.Background()
	if err := b.MkdirAll(ctx, "conf", 0o755); err != nil {
		t.Fatal(err)
	}
	sh(t, b, "rmdir /workspace/conf && ln -s /etc /workspace/conf && ln -s /etc/passwd /workspace/pw")
	before := sh(t, b, "sha256sum /etc/passwd /etc/group; stat -c %a /etc/passwd; ls /etc | wc -l")
	if _, err := b.WriteFile(ctx, "conf/passwd", strings.NewReader("pwned\n"), 0o644, ""); !errors.Is(err, backend.ErrEscapesRoot) {
		t.Fatalf("write through a planted symlink: %v", err)
	}
	if _, err := b.WriteFile(ctx, "conf/new-file", strings.NewReader("x"), 0o644, ""); !errors.Is(err, backend.ErrEscapesRoot) {
		t.Fatalf("write of a new file through a planted symlink: %v", err)
	}
	if _, err := b.WriteFile(ctx, "pw", strings.NewReader("pwned\n"), 0o644, ""); !errors.Is(err, backend.ErrEscapesRoot) {
		t.Fatalf("write over a symlink to a file: %v", err)
	}
	if err := b.Chmod(ctx, "conf/passwd", 0o777); !errors.Is(err, backend.ErrEscapesRoot) {
		t.Fatalf("chmod through a planted symlink: %v", err)
	}
	if err := b.MkdirAll(ctx, "conf/sub", 0o777); !errors.Is(err, backend.ErrEscapesRoot) {
		t.Fatalf("mkdir through a planted symlink: %v", err)
	}
	if err := b.RemoveAll(ctx, "conf/passwd"); err != nil && !errors.Is(err, backend.ErrEscapesRoot) {
		t.Fatalf("remove through a planted symlink: %v", err)
	}
	if after := sh(t, b, "sha256sum /etc/passwd /etc/group; stat -c %a /etc/passwd; ls /etc | wc -l"); after != before {
		t.Fatalf("/etc changed:\nbefore %s\nafter  %s", before, after)
	}
}

func TestDockerBackend_accountsAndGroups(t *testing.T) {
	b := newWorkspace(t, func(s *docker.Spec) {
		s.Users = []sandbox.User{{Name: "agent"}}
		s.Groups = []sandbox.Group{{Name: "team", Users: []sandbox.User{{Name: "agent"}, {Name: "reviewer"}}}}
	})
	ctx := context.Background()
	if got := sh(t, b, "id -nG agent; id -nG reviewer"); got != "agent team\nreviewer team" {
		t.Fatalf("accounts: %q", got)
	}
	if _, err := b.WriteFile(ctx, "shared.txt", strings.NewReader("x"), 0o640, ""); err != nil {
		t.Fatal(err)
	}
	if err := b.Chgrp(ctx, "shared.txt", "team"); err != nil {
		t.Fatal(err)
	}
	if got := sh(t, b, "stat -c %G /workspace/shared.txt"); got != "team" {
		t.Fatalf("group: %q", got)
	}
	if err := b.Chgrp(ctx, "shared.txt", "no-such-group"); err == nil || !strings.Contains(err.Error(), "no-such-group") {
		t.Fatalf("unknown group: %v", err)
	}
}

func TestDockerBackend_execAndLifecycle(t *testing.T) {
	b := newWorkspace(t, func(s *docker.Spec) { s.Environment = map[string]string{"GREETING": "hi"} })
	ctx := context.Background()
	res, err := b.Exec(ctx, sandbox.ExecRequest{Argv: []string{"sh", "-c", "echo $GREETING $EXTRA; pwd; echo err >&2; exit 3"}, Env: map[string]string{"EXTRA": "there"}})
	if err != nil || res.ExitCode != 3 || string(res.Stdout) != "hi there\n/workspace\n" || string(res.Stderr) != "err\n" {
		t.Fatalf("exec: %+v %q %q %v", res, res.Stdout, res.Stderr, err)
	}
	// On timeout the command and everything it started are killed, even a
	// child that left the process group.
	_, err = b.Exec(ctx, sandbox.ExecRequest{
		Argv:    []string{"sh", "-c", "sleep 31 & setsid sleep 32 & sleep 33; echo done"},
		Timeout: 500 * time.Millisecond,
	})
	if !errors.Is(err, sandbox.ErrExecTimeout) || !strings.Contains(err.Error(), "every process it started was killed") {
		t.Fatalf("timeout: %v", err)
	}
	left := sh(t, b, `for p in /proc/[0-9]*; do tr '\0' ' ' < $p/cmdline 2>/dev/null; echo; done | grep -c 'sleep 3[123]' || true`)
	if left != "0" {
		t.Fatalf("%s processes of the timed-out command survived", left)
	}
	// A stopped container still exists, is not started by looking, reads
	// as stopped, and runs again after Start.
	cli := dockertest.Client()
	if _, err := cli.ContainerStop(ctx, b.ContainerID(), clientStop()); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.Exists(ctx); !ok || err != nil {
		t.Fatalf("exists after stop: %v %v", ok, err)
	}
	if _, err := b.Stat(ctx, "."); !errors.Is(err, backend.ErrStopped) {
		t.Fatalf("stat of a stopped container = %v, want ErrStopped", err)
	}
	if ins, err := cli.ContainerInspect(ctx, b.ContainerID(), client.ContainerInspectOptions{}); err != nil || ins.Container.State.Running {
		t.Fatalf("looking started the container (or inspect failed: %v)", err)
	}
	if err := b.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Stat(ctx, "."); err != nil {
		t.Fatalf("stat after Start: %v", err)
	}
}

func TestDockerBackend_bigStream(t *testing.T) {
	b := newWorkspace(t, nil)
	const size = 64 << 20
	res, err := b.WriteFile(context.Background(), "big.bin", io.LimitReader(zeros{}, size), 0o644, "")
	if err != nil || res.Size != size {
		t.Fatalf("%+v %v", res, err)
	}
	if got := sh(t, b, "stat -c %s /workspace/big.bin"); got != "67108864" {
		t.Fatalf("size in the container: %s", got)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }
