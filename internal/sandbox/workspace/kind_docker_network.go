package workspace

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"fmt"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// CheckDockerNetworking checks n for a container of network mode mode,
// without the daemon; a problem is a *DockerFieldError.
func CheckDockerNetworking(mode string, n spec.DockerNetworking) error {
	return docker.ValidateNetworking(mode, n)
}

// CheckDockerGrants checks the path grants of a docker workspace whose
// root is root, with its volumes and tmpfs mounts, as CreateDocker will
// (the Python SDK's checks, design/sdk-model.md §6.2); a problem is a
// *GrantError.
func CheckDockerGrants(root string, grants []posix.PathGrant, vols []spec.VolumeMount, tmpfs map[string]string) error {
	return docker.ValidateGrants(root, grants, vols, tmpfs)
}

// UpdateDockerNetworks connects and disconnects the container of w so it
// is on exactly the networks nws (besides its network_mode's), each with
// its aliases, as `docker network connect` and `disconnect` do.
func (e *Engine) UpdateDockerNetworks(ctx context.Context, w *Workspace, nws []spec.DockerNetwork) error {
	b, ok := w.Backend.(*docker.Backend)
	if !ok {
		return fmt.Errorf("workspace %s is not a docker workspace", w.ID)
	}
	return b.UpdateNetworks(ctx, nws)
}
