package provider

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
)

// dockerEnv is a testEnv whose workspace is a container of the test image.
type dockerEnv struct {
	*testEnv
	seen map[string]bool // container ids created during the test
}

// newDockerEnv skips the test (fails it under CI=true) without a daemon.
func newDockerEnv(t *testing.T) *dockerEnv {
	t.Helper()
	dockertest.Require(t)
	return &dockerEnv{testEnv: newTestEnv(t), seen: map[string]bool{}}
}

// config is a provider block, a docker workspace with extra attributes
// wsExtra, and body.
func (e *dockerEnv) config(wsExtra, body string) string {
	return e.configDocker("", wsExtra, body)
}

// configDocker is config with dockerExtra added inside the docker block.
func (e *dockerEnv) configDocker(dockerExtra, wsExtra, body string) string {
	return fmt.Sprintf(`
provider "sandbox" {
  local_base_dir    = %q
  extra_path_grants = [{ path = %q, read_only = true }]
}

resource "sandbox_workspace" "ws" {
  docker {
    image       = %q
    pull_policy = "never"
    %s
  }
  %s
}
%s`, e.base, e.src, dockertest.Image, dockerExtra, wsExtra, body)
}

// container returns the workspace's container id from state and records it
// for checkGone.
func (e *dockerEnv) container(s *terraform.State) string {
	id := s.RootModule().Resources["sandbox_workspace.ws"].Primary.Attributes["container_id"]
	e.seen[id] = true
	return id
}

// sh runs a shell script as root in the container and returns its output.
func sh(containerID, script string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := dockertest.Exec(ctx, containerID, "sh", "-c", script)
	return strings.TrimSpace(out), err
}

// expectSh checks the output of a script run in the workspace container.
func (e *dockerEnv) expectSh(script, want string) func(*terraform.State) error {
	return func(s *terraform.State) error {
		got, err := sh(e.container(s), script)
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("%s:\n got %q\nwant %q", script, got, want)
		}
		return nil
	}
}

// checkGone asks the daemon that every container the test saw is removed.
func (e *dockerEnv) checkGone(*terraform.State) error {
	for id := range e.seen {
		_, err := dockertest.Client().ContainerInspect(context.Background(), id, client.ContainerInspectOptions{})
		switch {
		case err == nil:
			return fmt.Errorf("container %s still exists after destroy", id)
		case !cerrdefs.IsNotFound(err):
			return fmt.Errorf("container %s after destroy: %w", id, err)
		}
	}
	if len(e.seen) == 0 {
		return fmt.Errorf("no container was seen by the test")
	}
	return nil
}

// httpGet fetches url from the host, retrying while the server starts.
func httpGet(url string) (string, error) {
	var last error
	for i := 0; i < 50; i++ {
		resp, err := http.Get(url) //nolint:gosec // a URL the test built from the workspace's endpoint on 127.0.0.1
		if err == nil {
			b, rerr := io.ReadAll(resp.Body)
			resp.Body.Close()
			if rerr == nil && resp.StatusCode == http.StatusOK {
				return string(b), nil
			}
			err = rerr
			if err == nil {
				err = fmt.Errorf("status %s, body %q", resp.Status, b)
			}
		}
		last = err
		time.Sleep(100 * time.Millisecond)
	}
	return "", last
}
