package workspace

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"fmt"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
)

// CheckDockerIsolation checks iso for a container with workspace root
// root, volumes and (hasAccounts) users or groups to provision, without
// the daemon; a problem is a *DockerFieldError.
func CheckDockerIsolation(iso spec.DockerIsolation, root string, volumes []spec.VolumeMount, hasAccounts bool) error {
	return docker.ValidateIsolation(iso, root, volumes, hasAccounts)
}

// CheckDockerRuntime asks the daemon whether it has the runtime name ("":
// its default); an unknown one is a *DockerFieldError naming those it has.
func (e *Engine) CheckDockerRuntime(ctx context.Context, name string) error {
	return e.docker.CheckRuntime(ctx, name)
}

// UpdateDockerLimits applies memory, memory_swap, cpus and pids_limit of
// iso to the running container of w, as `docker update` does.
func (e *Engine) UpdateDockerLimits(ctx context.Context, w *Workspace, iso spec.DockerIsolation) error {
	b, ok := w.Backend.(*docker.Backend)
	if !ok {
		return fmt.Errorf("workspace %s is not a docker workspace", w.ID)
	}
	return b.UpdateLimits(ctx, iso)
}

// DockerImagePresent reports whether the configured daemon holds image;
// it only inspects.
func (e *Engine) DockerImagePresent(ctx context.Context, image string) (bool, error) {
	return e.docker.ImagePresent(ctx, image)
}
