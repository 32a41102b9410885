// Package dockertest is test support for Docker workspaces: it finds the
// daemon and the locally built test image, and provides a static file
// helper when the test binary itself is not one. Only tests import it.
//
// Without a daemon or the image the calling test skips with the reason,
// unless CI=true, where it fails: CI must never skip the Docker suite
// silently. `make testacc` (scripts/docker-up.sh) starts a daemon and builds
// the image first.
package dockertest

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
	"github.com/moby/moby/client"
)

// Image is the test image built by scripts/docker-up.sh FROM scratch: a
// static busybox with every applet (httpd included), the shadow account
// tools, and rclone and fusermount3 (with /etc/fuse.conf allowing
// user_allow_other) for storage mounts. SANDBOX_TEST_IMAGE overrides it.
var Image = func() string {
	if v := os.Getenv("SANDBOX_TEST_IMAGE"); v != "" {
		return v
	}
	return "sandbox-test/busybox:latest"
}()

var (
	once    sync.Once
	ready   error
	daemon  *docker.Daemon
	rawCli  *client.Client
	helperD string
)

// Require returns the daemon for a Docker test, or skips (fails under
// CI=true) saying why none is usable.
func Require(t testing.TB) *docker.Daemon {
	t.Helper()
	once.Do(func() { ready = setup() })
	if ready != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Docker tests cannot run (CI=true makes this a failure): %v", ready)
		}
		t.Skipf("Docker tests skipped: %v (run scripts/docker-up.sh, or `make testacc`, to start a daemon and build %s)", ready, Image)
	}
	return daemon
}

// Daemon returns the daemon Require found (Require must have succeeded).
func Daemon() *docker.Daemon { return daemon }

// Client returns a raw API client for checks a test makes behind the
// provider's back (Require must have succeeded).
func Client() *client.Client { return rawCli }

func setup() error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	d := docker.NewDaemon(docker.HostConfig{})
	if err := d.Ping(ctx); err != nil {
		return fmt.Errorf("no Docker daemon answers: %w", err)
	}
	cli, err := docker.NewClient(docker.HostConfig{})
	if err != nil {
		return err
	}
	if _, err := cli.ImageInspect(ctx, Image); err != nil {
		return fmt.Errorf("test image %s is missing: %w", Image, err)
	}
	if err := ensureStaticHelper(); err != nil {
		return err
	}
	daemon, rawCli = d, cli
	return nil
}

// ensureStaticHelper sets SANDBOX_FS_HELPER to a static build of
// ./cmd/sandbox-fs-helper when it is unset and the test binary is
// dynamically linked (cgo), so that the backend has a helper to copy.
func ensureStaticHelper() error {
	if os.Getenv(docker.HelperEnv) != "" {
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if static(self) {
		return nil
	}
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("building the file helper: go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return errors.New("building the file helper: not inside the module")
	}
	helperD, err = os.MkdirTemp("", "sandbox-fs-helper-")
	if err != nil {
		return err
	}
	bin := filepath.Join(helperD, "sandbox-fs-helper")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/sandbox-fs-helper")
	cmd.Dir = filepath.Dir(mod)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building the file helper: %w: %s", err, out)
	}
	return os.Setenv(docker.HelperEnv, bin)
}

func static(p string) bool {
	f, err := elf.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			return false
		}
	}
	return true
}

// Exec runs argv in the container (as root) behind the provider's back and
// returns stdout; a non-zero exit is an error carrying stderr.
func Exec(ctx context.Context, containerID string, argv ...string) (string, error) {
	res, err := daemon.Open(containerID, "/").Exec(ctx, sandbox.ExecRequest{Argv: argv, User: "0:0"})
	if err != nil {
		return "", err
	}
	if res.ExitCode != 0 {
		return string(res.Stdout), fmt.Errorf("%s exited %d: %s", strings.Join(argv, " "), res.ExitCode, res.Stderr)
	}
	return string(res.Stdout), nil
}
