package workspace

import (
	"context"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
)

// VolumeSpec is a named Docker volume to create for the docker_volume
// mount strategy (SPEC §5.3, §5.6): Name (required), Driver ("" for
// "local"), Options (driver options, which may hold credentials and are
// never returned or shown in errors) and Labels. See docker.VolumeSpec.
type VolumeSpec = docker.VolumeSpec

// VolumeInfo is what InspectVolume reports: Name, Driver, Labels and
// Exists; never the driver options. See docker.VolumeInfo.
type VolumeInfo = docker.VolumeInfo

// VolumeMount attaches an existing named volume to a docker workspace at
// creation: Name, Target (absolute in the container, not the root nor a
// directory containing it) and ReadOnly. See docker.VolumeMount.
type VolumeMount = docker.VolumeMount

// MissingVolumeError is returned by CreateDocker when a VolumeMount names
// a volume the daemon does not have; Name says which.
type MissingVolumeError = docker.MissingVolumeError

// LabelManaged is the label, set to "true", that marks every volume
// CreateVolume creates.
const LabelManaged = docker.LabelManaged

// CreateVolume creates the named volume on the provider's Docker daemon,
// labelled LabelManaged=true. An existing volume with the same driver and
// options is reused; one with a different driver or options is an error
// naming the volume and the option names that differ. Option values are
// redacted from every error.
func (e *Engine) CreateVolume(ctx context.Context, spec VolumeSpec) error {
	return e.docker.CreateVolume(ctx, spec)
}

// RemoveVolume removes the named volume. A missing volume is not an
// error; a volume still mounted by a container is an error naming the
// container (and its workspace).
func (e *Engine) RemoveVolume(ctx context.Context, name string) error {
	return e.docker.RemoveVolume(ctx, name)
}

// InspectVolume reports whether the named volume exists, with its driver
// and labels. A missing volume is Exists=false, not an error.
func (e *Engine) InspectVolume(ctx context.Context, name string) (VolumeInfo, error) {
	return e.docker.InspectVolume(ctx, name)
}
