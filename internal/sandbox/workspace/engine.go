// Package workspace is the engine's front door: it creates, finds and
// removes workspaces, and applies, reads and removes entries in them through
// the backend.Backend interface. The Terraform provider calls only this
// package (and the pure rules of package sandbox); it never touches files or
// containers itself.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sync"

	"github.com/google/uuid"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/local"
)

// Config is the engine's configuration, taken from the provider block.
type Config struct {
	// LocalBaseDir is the absolute directory holding default local
	// workspace roots (<LocalBaseDir>/<id>) and the registry.
	LocalBaseDir string
	// WorkingDir is the absolute directory host sources are relative to
	// (Terraform's working directory; the seed's base_dir).
	WorkingDir string
	// Grants are the provider's extra_path_grants (SPEC §3.6).
	Grants []sandbox.PathGrant
	// Docker says how to reach the Docker daemon for docker workspaces;
	// the daemon is contacted only when one is used.
	Docker docker.HostConfig
}

// Engine carries out workspace and entry operations.
type Engine struct {
	cfg    Config
	docker *docker.Daemon
	// mountLocks serialise mounts of one path (see lockMountPath).
	mountLocks sync.Map
}

// New returns an engine for cfg. Nothing is touched on disk and no daemon
// is contacted.
func New(cfg Config) *Engine {
	return &Engine{cfg: cfg, docker: docker.NewDaemon(cfg.Docker)}
}

// Config returns the engine's configuration.
func (e *Engine) Config() Config { return e.cfg }

// HostSources returns the policy that confines and reads host sources.
func (e *Engine) HostSources() sandbox.HostSourcePolicy {
	return sandbox.HostSourcePolicy{BaseDir: e.cfg.WorkingDir, Grants: e.cfg.Grants}
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

// LocalSpec describes a local workspace to create.
type LocalSpec struct {
	// Root is the absolute host directory, or "" for <LocalBaseDir>/<id>.
	Root string
	// Environment is added to every command run in the workspace.
	Environment map[string]string
}

// Workspace is a created or found workspace.
type Workspace struct {
	// ID is the workspace id (see ParseID).
	ID string
	// UUID is the id's UUID.
	UUID string
	// Kind is "local" or "docker".
	Kind string
	// Root is the absolute root as seen inside the workspace.
	Root string
	// ContainerID is the container of a docker workspace, else "".
	ContainerID string
	// Running is false for a docker workspace whose container is stopped
	// or paused; a local workspace is always running.
	Running bool
	// StartedAt is when the container was last started (RFC 3339, as the
	// daemon reports it), "" for a local workspace.
	StartedAt string
	// Environment is a local workspace's environment (from its marker).
	Environment map[string]string
	// Backend performs the workspace's operations.
	Backend backend.Backend
}

// AbsPath returns the absolute path of the workspace-relative rel, as seen
// inside the workspace.
func (w *Workspace) AbsPath(rel string) string {
	if rel == "." || rel == "" {
		return w.Root
	}
	return path.Join(w.Root, rel)
}

// CreateLocal creates a local workspace with a new id. An existing
// non-empty directory, or one that already is a workspace, is refused, so
// nothing already there can be lost; the root is claimed atomically with
// its marker, so of two creations racing for one root exactly one wins.
func (e *Engine) CreateLocal(ctx context.Context, spec LocalSpec) (*Workspace, error) {
	id := uuid.NewString()
	root := spec.Root
	if root == "" {
		root = filepath.Join(e.cfg.LocalBaseDir, id)
	}
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("workspace root %q must be an absolute path", root)
	}
	root = filepath.Clean(root)
	if err := e.CheckNewLocalRoot(root); err != nil {
		return nil, err
	}
	b := local.New(root)
	if err := b.Create(ctx); err != nil {
		return nil, err
	}
	if err := local.ClaimMarker(root, local.Marker{ID: id, Environment: spec.Environment}); err != nil {
		return nil, err
	}
	return &Workspace{ID: LocalID(id, root), UUID: id, Kind: local.Kind, Root: root, Running: true, Environment: spec.Environment, Backend: b}, nil
}

// AdoptLocal finds the local workspace whose root is root (import). Only a
// directory carrying a workspace marker is adopted: any other directory is
// refused, so an import can never turn foreign data into a workspace that a
// destroy would delete.
func (e *Engine) AdoptLocal(ctx context.Context, root string) (*Workspace, error) {
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("workspace root %q must be an absolute path", root)
	}
	root = filepath.Clean(root)
	m, err := readLocalMarker(root)
	if err != nil {
		return nil, fmt.Errorf("%s is not a workspace of this provider, so it cannot be imported: %w", root, err)
	}
	return e.Open(ctx, LocalID(m.ID, root))
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
		if ref, err = e.legacyRef(ref.UUID); err != nil {
			return nil, err
		}
	}
	switch ref.Kind {
	case local.Kind:
		return e.openLocal(ctx, ref)
	case docker.Kind:
		return e.openDocker(ctx, ref)
	}
	return nil, fmt.Errorf("workspace %s has unsupported backend kind %q", id, ref.Kind)
}

func (e *Engine) openLocal(ctx context.Context, ref Ref) (*Workspace, error) {
	b := local.New(ref.Root)
	ok, err := b.Exists(ctx)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: %s (root %s is missing)", ErrWorkspaceGone, ref, ref.Root)
	}
	m, err := readLocalMarker(ref.Root)
	switch {
	case err != nil && errors.Is(err, local.ErrNoMarker) && e.legacyRoot(ref):
		m = local.Marker{ID: ref.UUID, Environment: e.legacyEnvironment(ref.UUID)}
	case err != nil && errors.Is(err, local.ErrNoMarker):
		return nil, fmt.Errorf("%w: directory %s is not workspace %s: %w; if the workspace was deleted and this is another directory, "+
			"move it away or remove the workspace from state (terraform state rm)", ErrNotWorkspace, ref.Root, ref.UUID, err)
	case err != nil:
		return nil, err
	case m.ID != ref.UUID:
		return nil, fmt.Errorf("%w: directory %s is workspace %s, not %s: the workspace was re-created or replaced by another; "+
			"remove it from state (terraform state rm) or import the other one", ErrNotWorkspace, ref.Root, m.ID, ref.UUID)
	}
	return &Workspace{ID: LocalID(ref.UUID, ref.Root), UUID: ref.UUID, Kind: local.Kind, Root: ref.Root, Running: true,
		Environment: m.Environment, Backend: b}, nil
}

func (e *Engine) openDocker(ctx context.Context, ref Ref) (*Workspace, error) {
	c, ok, err := e.docker.Lookup(ctx, ref.UUID)
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
		Running: c.Running, StartedAt: c.StartedAt, Backend: e.docker.Open(c.ID, root)}, nil
}

// Start starts (or unpauses) the container of a stopped docker workspace;
// a running or local workspace is left as it is.
func (e *Engine) Start(ctx context.Context, w *Workspace) error {
	if w.Running {
		return nil
	}
	b, ok := w.Backend.(*docker.Backend)
	if !ok {
		return nil
	}
	if err := b.Start(ctx); err != nil {
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
	switch b := w.Backend.(type) {
	case *local.Backend:
		if err := b.Destroy(ctx); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	case *docker.Backend:
		return e.docker.Remove(ctx, b.ContainerID())
	}
	return nil
}
