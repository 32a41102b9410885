package workspace

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"path"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// ValidateVolumeMounts checks the volume mounts of a docker workspace
// whose root is root, as CreateDocker will: non-empty names; absolute,
// clean targets, each used once, neither the root nor a directory
// containing it. The first problem is a *VolumeMountError. Nothing is
// contacted.
func ValidateVolumeMounts(root string, vols []spec.VolumeMount) error {
	return docker.ValidateVolumes(root, vols)
}

// VolumeTarget resolves where a volume lands in a docker workspace whose
// root is root, following the Python SDK's explicit mount_path rules
// (design/sdk-model.md §5.2): a POSIX-absolute p is used as is (cleaned), and may lie
// outside the workspace; a relative p is checked with the entry path rules
// (design/sdk-model.md §3.2: no ".." segment, reason escape_root) and joined to root; a
// Windows-absolute p is an error with reason "absolute". The errors are
// *sandbox.Error values. VolumeTarget("/workspace", "data") is
// "/workspace/data"; VolumeTarget("/workspace", "/mnt/x/") is "/mnt/x".
func VolumeTarget(root, p string) (string, error) {
	if !posix.IsWindowsAbsolute(p) && strings.HasPrefix(p, "/") {
		return path.Clean(p), nil
	}
	rel, err := posix.ValidateEntryPath(p)
	if err != nil {
		return "", err
	}
	return path.Join(root, rel), nil
}

// LabelManaged is the label, set to "true", that marks every volume
// CreateVolume creates.
const LabelManaged = docker.LabelManaged

// CreateVolume creates the named volume on the provider's Docker daemon,
// labelled LabelManaged=true. An existing volume with the same driver and
// options is reused; one with a different driver or options is an error
// naming the volume and the option names that differ. Option values are
// redacted from every error.
func (e *Engine) CreateVolume(ctx context.Context, v spec.DockerVolume) error {
	return e.docker.CreateVolume(ctx, v)
}

// RemoveVolume removes the named volume. A missing volume is not an
// error; a volume still mounted by a container is an error naming the
// container (and its workspace).
func (e *Engine) RemoveVolume(ctx context.Context, name string) error {
	return e.docker.RemoveVolume(ctx, name)
}

// InspectVolume reports whether the named volume exists, with its driver
// and labels. A missing volume is Exists=false, not an error.
func (e *Engine) InspectVolume(ctx context.Context, name string) (spec.DockerVolumeInfo, error) {
	return e.docker.InspectVolume(ctx, name)
}
