package workspace

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"

	"github.com/google/uuid"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
)

// DefaultDockerRoot is the workspace root inside a container when none is
// given, the Python SDK's default manifest root.
const DefaultDockerRoot = "/workspace"

// CreateDocker creates a container workspace with a new id: the image is
// pulled as the policy says, the container started and kept alive with
// its volumes mounted, the root created, and users and groups provisioned
// (design/sdk-model.md §4.1). The container is removed again if any step fails.
func (e *Engine) CreateDocker(ctx context.Context, s spec.Docker) (*Workspace, error) {
	id := uuid.NewString()
	if s.Root == "" {
		s.Root = DefaultDockerRoot
	}
	if !path.IsAbs(s.Root) || path.Clean(s.Root) != s.Root {
		return nil, fmt.Errorf("workspace root %q must be an absolute, clean POSIX path", s.Root)
	}
	b, err := e.docker.Create(ctx, docker.Spec{Docker: s, WorkspaceID: id})
	if err != nil {
		return nil, envSecrets(s.SecretEnvironment).Error(err)
	}
	return &Workspace{ID: DockerID(id), UUID: id, Kind: docker.Kind, Root: s.Root, ContainerID: b.ContainerID(), Running: true,
		StartedAt: b.StartedAt(ctx), Expiry: s.Expiry, Backend: b, drv: e.drivers[docker.Kind], eng: e}, nil
}

// AdoptDocker finds the docker workspace whose container is labelled with
// the UUID id (docker.LabelWorkspaceID), for import. It fails when the
// configured daemon has no such container.
func (e *Engine) AdoptDocker(ctx context.Context, id string) (*Workspace, error) {
	w, err := e.Open(ctx, DockerID(id))
	if errors.Is(err, ErrWorkspaceGone) {
		return nil, fmt.Errorf("no workspace %s: the Docker daemon has no container labelled %s=%s", id, docker.LabelWorkspaceID, id)
	}
	return w, err
}

// FindDocker finds a docker workspace by its container's id or name, or by
// labels that exactly one workspace container carries (for the
// sandbox_workspace data source and import).
func (e *Engine) FindDocker(ctx context.Context, containerID string, labels map[string]string) (*Workspace, error) {
	uuid, err := e.docker.FindByContainer(ctx, containerID, labels)
	if err != nil {
		return nil, err
	}
	return e.Open(ctx, DockerID(uuid))
}

// CheckDockerHost validates a daemon configuration without contacting the
// daemon: the host URL's form and the TLS material (a CA is required).
func CheckDockerHost(c spec.DockerConfig) error { return docker.HostConfig{DockerConfig: c}.Check() }

// DescribeDocker reads DockerInfo of a docker workspace.
func (e *Engine) DescribeDocker(ctx context.Context, w *Workspace) (spec.DockerInfo, error) {
	b, ok := w.Backend.(*docker.Backend)
	if !ok {
		return spec.DockerInfo{}, fmt.Errorf("workspace %s is not a docker workspace", w.ID)
	}
	return b.Describe(ctx)
}

// DockerDaemonID returns the id of the Docker daemon the provider is
// configured for, so that a workspace created on another daemon is refused
// rather than taken for removed.
func (e *Engine) DockerDaemonID(ctx context.Context) (string, error) { return e.docker.DaemonID(ctx) }

// DockerID returns the id of a docker workspace.
func DockerID(uuid string) string { return docker.Kind + ":" + uuid }

// dockerDriver is the docker kind: a container on the configured daemon,
// labelled with the workspace UUID.
type dockerDriver struct{ e *Engine }

func (d dockerDriver) open(ctx context.Context, ref Ref) (*Workspace, error) {
	c, ok, err := d.e.docker.LookupRecent(ctx, ref.UUID)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: %s (no container labelled %s=%s on the Docker daemon)", ErrWorkspaceGone, DockerID(ref.UUID), docker.LabelWorkspaceID, ref.UUID)
	}
	root := c.Root
	if root == "" {
		root = DefaultDockerRoot
	}
	return &Workspace{ID: DockerID(ref.UUID), UUID: ref.UUID, Kind: docker.Kind, Root: root, ContainerID: c.ID,
		Running: c.Running, Paused: c.Paused, StartedAt: c.StartedAt, Expiry: c.Expiry, Backend: d.e.docker.OpenFound(c), drv: d, eng: d.e}, nil
}

func (d dockerDriver) destroy(ctx context.Context, w *Workspace) error {
	return d.e.docker.Remove(ctx, w.ContainerID)
}

func (d dockerDriver) start(ctx context.Context, w *Workspace) error {
	return d.backend(w).Start(ctx)
}

// backend is w's own Backend (which may still know the container from the
// lookup that opened w), else a new one.
func (d dockerDriver) backend(w *Workspace) *docker.Backend {
	if b, ok := w.Backend.(*docker.Backend); ok && b.ContainerID() == w.ContainerID {
		return b
	}
	return d.e.docker.Open(w.ContainerID, w.Root)
}

// endpoints are the bindings the daemon reports (design/sdk-model.md §6.2).
func (d dockerDriver) endpoints(ctx context.Context, w *Workspace, ports []int) ([]sandbox.ExposedPortEndpoint, error) {
	return d.backend(w).Endpoints(ctx, ports)
}

// setEnvironment does nothing: a container's environment is fixed when it
// is created (changing it replaces the workspace).
func (dockerDriver) setEnvironment(context.Context, *Workspace, map[string]string) error { return nil }

func (dockerDriver) mountBackend() string { return "docker" }

// checkMount requires the FUSE grant an in-container mount needs.
func (d dockerDriver) checkMount(ctx context.Context, w *Workspace, m *mount.Mount) error {
	info, err := d.e.DescribeDocker(ctx, w)
	if err != nil {
		return err
	}
	if !info.FUSE {
		return fmt.Errorf("%w: workspace %s has no FUSE grant; an in-container %s mount needs /dev/fuse and "+
			"CAP_SYS_ADMIN: set fuse = true in the workspace's docker block (this replaces the container)",
			ErrNoFUSE, w.ID, m.Strategy.Pattern.Type)
	}
	return nil
}

// mountsOnHost is false: mount helpers run inside the container.
func (dockerDriver) mountsOnHost() bool { return false }

// parseDockerID reads what follows "docker:" in an id: the UUID.
func parseDockerID(id, rest string) (Ref, error) {
	if !ValidUUID(rest) {
		return Ref{}, fmt.Errorf("%q is not a workspace id: after \"docker:\" comes the workspace UUID; %s", id, idHelp)
	}
	return Ref{Kind: docker.Kind, UUID: rest}, nil
}

// secretEnvironment reads the container's write-only environment values.
func (d dockerDriver) secretEnvironment(ctx context.Context, w *Workspace) ([]string, error) {
	return d.backend(w).SecretEnvironment(ctx)
}

// CheckDockerRoot refuses a container root that would hold the provider's
// file helper (HelperDir, outside every workspace) or be the whole
// filesystem; "" (not known yet) passes.
func CheckDockerRoot(root string) error {
	h := fshelper.HelperDir
	if root == "/" || root == h || strings.HasPrefix(root, h+"/") || strings.HasPrefix(h, root+"/") {
		return fmt.Errorf("root %q would hold the provider's file helper (%s) inside the workspace; choose a directory such as %q",
			root, h, DefaultDockerRoot)
	}
	return nil
}
