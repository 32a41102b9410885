package spec

import (
	"errors"
	"fmt"
)

// DockerFieldError is an Isolation setting that cannot be used; Field is its
// attribute name in the docker block ("memory_swap", "tmpfs", ...).
type DockerFieldError struct {
	Field string
	Err   error
}

func (e *DockerFieldError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *DockerFieldError) Unwrap() error { return e.Err }

// MissingNetworkError is returned by the Docker backend's Create when a Network names a network
// the daemon does not have; nothing was created.
type MissingNetworkError struct {
	// Index is the network's position in Networking.Networks.
	Index int
	Name  string
}

func (e *MissingNetworkError) Error() string {
	return fmt.Sprintf("network %q does not exist on the Docker daemon: the workspace joins existing networks only and never "+
		"creates one. Create it first (docker network create %s), or with the resource that manages it", e.Name, e.Name)
}

// GrantError is a refused path grant of Docker.Grants: Index is its position
// and Field the grant's field at fault ("path" or "host_path").
type GrantError struct {
	Index  int
	Field  string
	Reason string
}

func (e *GrantError) Error() string { return e.Reason }

// MissingHostPathError is a grant whose host_path the Docker daemon's host
// does not have; the container was not created.
type MissingHostPathError struct {
	// Index is the grant's position in Docker.Grants.
	Index    int
	HostPath string
}

func (e *MissingHostPathError) Error() string {
	return fmt.Sprintf("host_path %s does not exist on the Docker daemon's host: a grant's host_path is bind-mounted as it "+
		"is and must exist before the workspace is created", e.HostPath)
}

// ErrUnknownDockerRuntime marks a runtime the Docker daemon does not have.
var ErrUnknownDockerRuntime = errors.New("unknown runtime")

// NetworkNoneMessage is the Python SDK's refusal of exposed ports on a
// container without a network (design/sdk-model.md §6.2).
const NetworkNoneMessage = "exposed_ports cannot be used when network_mode='none'"
