package workspace

import (
	"context"
	"fmt"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
)

// DockerIsolation is a container's limits and hardening (see
// docker.Isolation).
type DockerIsolation = docker.Isolation

// DockerUlimit is one ulimit's soft and hard value.
type DockerUlimit = docker.Ulimit

// DockerFieldError is a DockerIsolation setting that cannot be used; its
// Field names the docker block's attribute.
type DockerFieldError = docker.FieldError

// Size, ulimit, capability and CPU conversions of the docker block, the
// Docker command line's own.
var (
	ParseDockerSize     = docker.ParseSize
	FormatDockerSize    = docker.FormatSize
	ParseDockerUlimit   = docker.ParseUlimit
	NormalizeDockerCap  = docker.NormalizeCap
	DockerCPUs          = docker.CPUs
	CanonicalDockerCaps = docker.CanonicalCaps
)

// DockerBaselineCaps are the capabilities a container keeps when none is
// added or dropped.
var DockerBaselineCaps = docker.BaselineCaps

// CheckDockerIsolation checks iso for a container with workspace root
// root, volumes and (hasAccounts) users or groups to provision, without
// the daemon; a problem is a *DockerFieldError.
func CheckDockerIsolation(iso DockerIsolation, root string, volumes []VolumeMount, hasAccounts bool) error {
	return iso.Validate(root, volumes, hasAccounts)
}

// CheckDockerRuntime asks the daemon whether it has the runtime name ("":
// its default); an unknown one is a *DockerFieldError naming those it has.
func (e *Engine) CheckDockerRuntime(ctx context.Context, name string) error {
	return e.docker.CheckRuntime(ctx, name)
}

// UpdateDockerLimits applies memory, memory_swap, cpus and pids_limit of
// iso to the running container of w, as `docker update` does.
func (e *Engine) UpdateDockerLimits(ctx context.Context, w *Workspace, iso DockerIsolation) error {
	b, ok := w.Backend.(*docker.Backend)
	if !ok {
		return fmt.Errorf("workspace %s is not a docker workspace", w.ID)
	}
	return b.UpdateLimits(ctx, iso)
}

// ErrUnknownDockerRuntime marks a runtime the Docker daemon does not have.
var ErrUnknownDockerRuntime = docker.ErrUnknownRuntime

// DockerImagePresent reports whether the configured daemon holds image;
// it only inspects.
func (e *Engine) DockerImagePresent(ctx context.Context, image string) (bool, error) {
	return e.docker.ImagePresent(ctx, image)
}
