package docker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
)

// List reports a workspace the daemon holds, and refuses, saying why, a
// container made by hand with every label of it and a container run from
// an image committed from it (which inherits its labels).
func TestDockerList_refusesCopies(t *testing.T) {
	run := "list-" + uuid.NewString()[:8]
	b := newWorkspace(t, func(s *docker.Spec) { s.Labels = map[string]string{"ci_run": run} })
	d, cli := dockertest.Daemon(), dockertest.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ws, err := cli.ContainerInspect(ctx, b.ContainerID(), client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	made := func(cfg *container.Config) string {
		t.Helper()
		c, err := cli.ContainerCreate(ctx, client.ContainerCreateOptions{Config: cfg, HostConfig: &container.HostConfig{}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_, _ = cli.ContainerRemove(context.Background(), c.ID, client.ContainerRemoveOptions{Force: true})
		})
		return c.ID
	}
	copied := made(&container.Config{Image: dockertest.Image, Entrypoint: []string{"tail"}, Cmd: []string{"-f", "/dev/null"},
		Labels: ws.Container.Config.Labels})
	img, err := cli.ContainerCommit(ctx, b.ContainerID(), client.ContainerCommitOptions{Reference: "sandbox-test/committed-" + run})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = cli.ImageRemove(context.Background(), img.ID, client.ImageRemoveOptions{Force: true})
	})
	fromImage := made(&container.Config{Image: img.ID})

	listed, refused, err := d.List(ctx, map[string]string{"ci_run": run})
	if err != nil {
		t.Fatal(err)
	}
	if len(listed) != 1 || listed[0].ContainerID != b.ContainerID() || listed[0].State != docker.StateRunning ||
		listed[0].Labels["ci_run"] != run || listed[0].Root != "/workspace" {
		t.Fatalf("listed %+v, want only the workspace %s, running", listed, b.ContainerID())
	}
	reasons := map[string]string{}
	for _, r := range refused {
		reasons[r.ContainerID] = r.Reason
	}
	if !strings.Contains(reasons[copied], "no file helper volume") {
		t.Errorf("the hand-made copy: %q", reasons[copied])
	}
	if !strings.Contains(reasons[fromImage], "inherited from its image") {
		t.Errorf("the container of the committed image: %q", reasons[fromImage])
	}
	if len(refused) != 2 {
		t.Errorf("refused %+v, want the two copies", refused)
	}
}
