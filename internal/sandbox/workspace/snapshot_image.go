package workspace

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
)

// ImageRequest is one whole-environment snapshot of a docker workspace.
type ImageRequest struct {
	// Repository and Tag name the local image.
	Repository, Tag string
	// SnapshotID labels the image (docker.LabelSnapshotID).
	SnapshotID string
	// InputsSHA256, when set, labels the image (docker.LabelSnapshotInputs)
	// so that FindSnapshotImages finds it.
	InputsSHA256 string
	// Exclude are workspace-relative paths left out, in addition to the
	// recorded ephemeral entries and the mount patterns' session files.
	Exclude []string
	// Limits bound the image's filesystem: data bytes and members.
	Limits sandbox.OutputLimits
	// AllowSecrets lets files holding a write-only value in.
	AllowSecrets bool
}

// ErrRootIsMount is returned for an image snapshot of a workspace whose
// root is a mount (docker.disk makes it a tmpfs): no image holds it.
var ErrRootIsMount = docker.ErrRootIsMount

// ErrImageNotDocker is returned for an image snapshot of a workspace that
// is not a Docker container: only Docker can make an image of one.
var ErrImageNotDocker = errors.New("an image snapshot needs a docker workspace")

// SnapshotImage writes the whole filesystem of a docker workspace's
// container (its image's layers, what was installed since, the root) as a
// new local image without the excluded paths, the ephemeral entries, the
// mount session files or any mount's contents (docker.Backend.SnapshotImage).
func (w *Workspace) SnapshotImage(ctx context.Context, req ImageRequest) (docker.ImageSnapshotResult, error) {
	b, ok := w.Backend.(*docker.Backend)
	if !ok {
		return docker.ImageSnapshotResult{}, fmt.Errorf("%w; workspace %s is %s", ErrImageNotDocker, w.ID, w.Kind)
	}
	ephemeral, err := w.EphemeralPaths(ctx)
	if err != nil {
		return docker.ImageSnapshotResult{}, err
	}
	var drop []string
	for _, rel := range slices.Concat(req.Exclude, ephemeral, sessionDirParents) {
		drop = append(drop, w.AbsPath(rel))
	}
	res, err := b.SnapshotImage(ctx, docker.ImageSnapshot{Repository: req.Repository, Tag: req.Tag, Root: w.Root, Drop: drop,
		Limits: req.Limits, WriteOnly: writeOnlyGate(req.AllowSecrets),
		Labels: imageLabels(req, w.UUID)})
	if err != nil {
		return res, fmt.Errorf("image snapshot of workspace %s: %w", w.ID, err)
	}
	return res, nil
}

// imageLabels are the labels of a snapshot image.
func imageLabels(req ImageRequest, workspaceUUID string) map[string]string {
	l := map[string]string{docker.LabelSnapshotID: req.SnapshotID, docker.LabelSnapshotWorkspaceID: workspaceUUID,
		docker.LabelSnapshotRepository: docker.FamiliarRepository(req.Repository)}
	if req.InputsSHA256 != "" {
		l[docker.LabelSnapshotInputs] = req.InputsSHA256
	}
	return l
}

// FindSnapshotImages lists the snapshot images on the provider's daemon
// taken with inputs whose digest is inputsSHA256, newest first, only
// those tagged in repository when it is set (only reads).
func (e *Engine) FindSnapshotImages(ctx context.Context, inputsSHA256, repository string) ([]docker.FoundImage, error) {
	return e.docker.FindSnapshotImages(ctx, inputsSHA256, repository)
}

// SnapshotImageState reads a snapshot image on the provider's daemon.
func (e *Engine) SnapshotImageState(ctx context.Context, id string) (docker.ImageState, error) {
	return e.docker.InspectSnapshotImage(ctx, id)
}

// RemoveSnapshotImage removes a snapshot image unless a container uses it
// (docker.ErrImageInUse).
func (e *Engine) RemoveSnapshotImage(ctx context.Context, id, ref string) error {
	return e.docker.RemoveSnapshotImage(ctx, id, ref)
}

// ErrImageInUse is returned by RemoveSnapshotImage for an image a
// container was created from: the image stays.
var ErrImageInUse = docker.ErrImageInUse
