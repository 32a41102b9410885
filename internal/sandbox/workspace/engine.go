// Package workspace is the engine's front door: it creates, finds and
// removes workspaces, and applies, reads and removes entries in them through
// the backend.Backend interface. The Terraform provider calls only this
// package (and the pure rules of package sandbox); it never touches files or
// containers itself.
package workspace

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"errors"
	"fmt"
	"path"
	"sync"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/kubernetes"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/gitrepo"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/hostsource"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// Config is the engine's configuration, taken from the provider block.
type Config struct {
	// LocalBaseDir is the absolute directory holding default local
	// workspace roots (<LocalBaseDir>/<id>) and the registry.
	LocalBaseDir string
	// WorkingDir is the absolute directory host sources are relative to
	// (Terraform's working directory; the Python SDK's base_dir).
	WorkingDir string
	// Grants are the provider's extra_path_grants (design/sdk-model.md §3.6).
	Grants []posix.PathGrant
	// AllowHardLinks lets host sources hold regular files with more than
	// one link (hostsource.Policy.AllowHardLinks).
	AllowHardLinks bool
	// Docker says how to reach the Docker daemon for docker workspaces;
	// the daemon is contacted only when one is used.
	Docker spec.DockerConfig
	// DockerRequests, when set, counts the Docker API requests made (tests
	// and benchmarks).
	DockerRequests *docker.RequestCounter
	// Kubernetes says how to reach the cluster for kubernetes workspaces;
	// the cluster is contacted only when one is used.
	Kubernetes spec.KubernetesConfig
}

// Engine carries out workspace and entry operations.
type Engine struct {
	cfg     Config
	docker  *docker.Daemon
	kube    *kubernetes.Cluster
	drivers map[string]driver
	// mountLocks serialise mounts of one path (see lockMountPath).
	mountLocks sync.Map
	// recordLocks serialise the updates of one workspace's ephemeral
	// record (see RecordEphemeral).
	recordLocks sync.Map
	// OutputLimits are the provider's default bounds on what an export,
	// snapshot or restore takes out of a workspace (max_bytes, max_files);
	// the zero value means sandbox.DefaultMaxBytes and DefaultMaxFiles.
	OutputLimits sandbox.OutputLimits
	// wakes count the changes that woke a stopped workspace (see Wake).
	wakes wakes
}

// New returns an engine for cfg. Nothing is touched on disk and no daemon
// is contacted.
func New(cfg Config) *Engine {
	e := &Engine{cfg: cfg, docker: docker.NewDaemon(docker.HostConfig{DockerConfig: cfg.Docker, Requests: cfg.DockerRequests}), kube: kubernetes.NewCluster(cfg.Kubernetes)}
	e.drivers = newDrivers(e)
	return e
}

// Config returns the engine's configuration.
func (e *Engine) Config() Config { return e.cfg }

// HostSources returns the policy that confines and reads host sources.
func (e *Engine) HostSources() hostsource.Policy {
	return hostsource.Policy{BaseDir: e.cfg.WorkingDir, Grants: e.cfg.Grants, AllowHardLinks: e.cfg.AllowHardLinks}
}

// ErrWorkspaceGone is wrapped when a workspace's directory or container has
// vanished. Callers treat it as "gone", not as a failure: Terraform plans
// the workspace and its entries for re-creation.
var ErrWorkspaceGone = errors.New("workspace no longer exists")

// ErrWorkspaceStopped is wrapped when a docker workspace's container exists
// but is stopped or paused, so nothing inside it can be read. A plan leaves
// such entries as they are; the apply starts the container first.
var ErrWorkspaceStopped = backend.ErrStopped

// ErrNotWorkspace is wrapped when an id names a directory that is not that
// workspace (it carries no marker, or another workspace's).
var ErrNotWorkspace = errors.New("not this workspace")

// ErrAlreadyWorkspace is wrapped when a new workspace's root already is
// another workspace.
var ErrAlreadyWorkspace = errors.New("the directory already is a workspace")

// ErrSourceChanged is wrapped when a host source differs from what the plan
// showed: nothing of it that differs was written.
var ErrSourceChanged = errors.New("the source changed since the plan")

// ErrRefMoved is wrapped when a Git ref resolves to another commit than the
// plan showed.
var ErrRefMoved = gitrepo.ErrMoved

// LocalSpec describes a local workspace to create.
type LocalSpec struct {
	// Root is the absolute host directory, or "" for <LocalBaseDir>/<id>.
	Root string
	// Environment is added to every command run in the workspace.
	Environment map[string]string
	// Expiry is recorded in the marker; nothing enforces it on the host.
	Expiry sandbox.Expiry
}

// Workspace is a created or found workspace.
type Workspace struct {
	// ID is the workspace id (see ParseID).
	ID string
	// UUID is the id's UUID.
	UUID string
	// Kind is "local", "docker" or "kubernetes".
	Kind string
	// Root is the absolute root as seen inside the workspace.
	Root string
	// ContainerID is the container of a docker workspace, else "".
	ContainerID string
	// Running is false for a docker workspace whose container is stopped
	// or paused; a local workspace is always running. Paused is true for a
	// paused container, which keeps its processes, start time and ports.
	Running, Paused bool
	// StartedAt is when the container was last started (RFC 3339, as the
	// daemon reports it), "" for a local workspace.
	StartedAt string
	// Environment is a local workspace's environment (from its marker).
	Environment map[string]string
	// Expiry is what the workspace records of its lifetime (labels,
	// annotations, marker); zero when it has none.
	Expiry sandbox.Expiry
	// Backend performs the workspace's operations.
	Backend backend.Backend
	// drv is the workspace's kind.
	drv driver
	// eng is the engine that opened the workspace (its host-source policy
	// and configuration).
	eng *Engine
}

// AbsPath returns the absolute path of the workspace-relative rel, as seen
// inside the workspace.
func (w *Workspace) AbsPath(rel string) string {
	if rel == "." || rel == "" {
		return w.Root
	}
	return path.Join(w.Root, rel)
}

// Open finds the workspace with the given id from the id alone and what the
// backend reports: a local root carrying the id's marker, a container
// labelled with the id's UUID. A vanished workspace gives an error wrapping
// ErrWorkspaceGone; a directory that is not this workspace one wrapping
// ErrNotWorkspace. Open only reads.
func (e *Engine) Open(ctx context.Context, id string) (*Workspace, error) {
	ref, err := ParseID(id)
	if err != nil {
		return nil, err
	}
	if ref.Kind == "" {
		ref = e.legacyRef(ref.UUID)
	}
	d, ok := e.drivers[ref.Kind]
	if !ok {
		return nil, fmt.Errorf("workspace %s has unsupported backend kind %q", id, ref.Kind)
	}
	return d.open(ctx, ref)
}

// Start makes a stopped workspace (a stopped or paused container) run
// again and refreshes w; a running workspace is left as it is.
func (e *Engine) Start(ctx context.Context, w *Workspace) error {
	if w.Running {
		return nil
	}
	if err := w.drv.start(ctx, w); err != nil {
		return err
	}
	nw, err := e.Open(ctx, w.ID)
	if err != nil {
		return err
	}
	*w = *nw
	return nil
}

// ErrNotOurs is returned by Destroy when the directory at a local
// workspace's root is no longer that workspace: it is left in place.
var ErrNotOurs = errors.New("left in place")

// Destroy removes the workspace with the given id. With keep set the
// directory or container stays. A workspace that is already gone is not an
// error; a directory that is no longer this workspace is never removed (an
// error wrapping ErrNotOurs says so).
func (e *Engine) Destroy(ctx context.Context, id string, keep bool) error {
	w, err := e.Open(ctx, id)
	switch {
	case errors.Is(err, ErrWorkspaceGone):
		return nil
	case errors.Is(err, ErrNotWorkspace):
		return fmt.Errorf("%w: %w", ErrNotOurs, err)
	case err != nil:
		return err
	case keep:
		return nil
	}
	return w.drv.destroy(ctx, w)
}
