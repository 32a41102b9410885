package workspace_test

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"errors"
	"testing"

	"github.com/google/uuid"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// The engine creates a volume, a docker workspace mounts it, describes it
// back, and destroying the workspace leaves the volume for its owner to
// remove.
func TestDockerVolume_engine(t *testing.T) {
	dockertest.Require(t)
	ctx := context.Background()
	eng := workspace.New(workspace.Config{LocalBaseDir: t.TempDir(), WorkingDir: t.TempDir()})
	name := "sandbox-test-" + uuid.NewString()
	vs := spec.DockerVolume{Name: name, Options: map[string]string{"type": "tmpfs", "device": "tmpfs"}}
	if err := eng.CreateVolume(ctx, vs); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.RemoveVolume(context.Background(), name) })
	if info, err := eng.InspectVolume(ctx, name); err != nil || !info.Exists || info.Driver != "local" || info.Labels[workspace.LabelManaged] != "true" {
		t.Fatalf("inspect: %+v %v", info, err)
	}

	_, err := eng.CreateDocker(ctx, spec.Docker{Image: dockertest.Image, PullPolicy: "never",
		Volumes: []spec.VolumeMount{{Name: name + "-missing", Target: "/workspace/data"}}})
	var missing *spec.MissingVolumeError
	if !errors.As(err, &missing) || missing.Name != name+"-missing" {
		t.Fatalf("missing volume: %v", err)
	}

	w, err := eng.CreateDocker(ctx, spec.Docker{Image: dockertest.Image, PullPolicy: "never",
		Volumes: []spec.VolumeMount{{Name: name, Target: "/workspace/data", ReadOnly: true}}})
	if err != nil {
		t.Fatal(err)
	}
	info, err := eng.DescribeDocker(ctx, w)
	if err != nil || len(info.Volumes) != 1 || info.Volumes[0] != (spec.VolumeMount{Name: name, Target: "/workspace/data", ReadOnly: true}) {
		t.Fatalf("describe: %+v %v", info.Volumes, err)
	}
	if err := eng.RemoveVolume(ctx, name); err == nil {
		t.Fatal("a volume in use was removed")
	}
	if err := eng.Destroy(ctx, w.ID, false); err != nil {
		t.Fatal(err)
	}
	if info, err := eng.InspectVolume(ctx, name); err != nil || !info.Exists {
		t.Fatalf("the volume went with the workspace: %+v %v", info, err)
	}
	if err := eng.RemoveVolume(ctx, name); err != nil {
		t.Fatal(err)
	}
}
