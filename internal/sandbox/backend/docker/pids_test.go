package docker_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
)

// A container whose processes fill its pids_limit cannot start the file
// helper; the error says the process limit is probably reached and names
// its value.
func TestDockerBackend_pidsLimitReached(t *testing.T) {
	b := newWorkspace(t, func(s *docker.Spec) { s.Isolation.PidsLimit = docker.MinPidsLimit })
	// Background sleeps outlive the shell; it stops when a fork fails.
	_, _ = dockertest.Exec(context.Background(), b.ContainerID(), "sh", "-c",
		"i=0; while [ $i -lt 64 ] && (sleep 600 &) 2>/dev/null; do i=$((i+1)); done")
	// A new daemon handle has not seen the helper run in this container.
	_, err := docker.NewDaemon(docker.HostConfig{}).Open(b.ContainerID(), "/workspace").Stat(context.Background(), ".")
	if err == nil {
		t.Fatal("Stat succeeded in a container whose process limit is reached")
	}
	for _, want := range []string{"does not run", "process limit", "pids_limit = 16", "raise pids_limit"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
