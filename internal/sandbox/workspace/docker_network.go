package workspace

import (
	"context"
	"fmt"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
)

// DockerNetwork is an existing Docker network a workspace joins, with its
// aliases (see docker.Network).
type DockerNetwork = docker.Network

// DockerNetworking is the networks, extra hosts and DNS servers of a
// docker workspace (see docker.Networking).
type DockerNetworking = docker.Networking

// MissingNetworkError is returned by CreateDocker and
// UpdateDockerNetworks for a network the daemon does not have.
type MissingNetworkError = docker.MissingNetworkError

// MissingHostPathError is returned by CreateDocker for a grant whose
// host_path does not exist on the daemon's host.
type MissingHostPathError = docker.MissingHostPathError

// GrantError is a refused path grant: Index is its position in the list
// checked, Field "path" or "host_path".
type GrantError = docker.GrantError

// CheckDockerNetworking checks n for a container of network mode mode,
// without the daemon; a problem is a *DockerFieldError.
func CheckDockerNetworking(mode string, n DockerNetworking) error {
	return docker.ValidateNetworking(mode, n)
}

// CheckDockerGrants checks the path grants of a docker workspace whose
// root is root, with its volumes and tmpfs mounts, as CreateDocker will
// (the Python SDK's checks, design/sdk-model.md §6.2); a problem is a
// *GrantError.
func CheckDockerGrants(root string, grants []sandbox.PathGrant, vols []VolumeMount, tmpfs map[string]string) error {
	return docker.ValidateGrants(root, grants, vols, tmpfs)
}

// UpdateDockerNetworks connects and disconnects the container of w so it
// is on exactly the networks nws (besides its network_mode's), each with
// its aliases, as `docker network connect` and `disconnect` do.
func (e *Engine) UpdateDockerNetworks(ctx context.Context, w *Workspace, nws []DockerNetwork) error {
	b, ok := w.Backend.(*docker.Backend)
	if !ok {
		return fmt.Errorf("workspace %s is not a docker workspace", w.ID)
	}
	return b.UpdateNetworks(ctx, nws)
}
