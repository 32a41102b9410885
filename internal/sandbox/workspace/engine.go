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
	// AllowHardLinks lets host sources hold regular files with more than
	// one link (sandbox.HostSourcePolicy.AllowHardLinks).
	AllowHardLinks bool
	// Docker says how to reach the Docker daemon for docker workspaces;
	// the daemon is contacted only when one is used.
	Docker docker.HostConfig
}

// Engine carries out workspace and entry operations.
type Engine struct {
	cfg      Config
	registry *Registry
	docker   *docker.Daemon
	// mountLocks serialise mounts of one path (see lockMountPath).
	mountLocks sync.Map
}

// New returns an engine for cfg. Nothing is touched on disk and no daemon
// is contacted.
func New(cfg Config) *Engine {
	return &Engine{cfg: cfg, registry: NewRegistry(cfg.LocalBaseDir), docker: docker.NewDaemon(cfg.Docker)}
}

// Config returns the engine's configuration.
func (e *Engine) Config() Config { return e.cfg }

// HostSources returns the policy that confines and reads host sources.
func (e *Engine) HostSources() sandbox.HostSourcePolicy {
	return sandbox.HostSourcePolicy{BaseDir: e.cfg.WorkingDir, Grants: e.cfg.Grants, AllowHardLinks: e.cfg.AllowHardLinks}
}

// ErrWorkspaceGone is wrapped when a workspace id is unknown or its
// directory or container has vanished. Callers treat it as "gone", not as a
// failure: Terraform plans the workspace and its entries for re-creation.
var ErrWorkspaceGone = errors.New("workspace no longer exists")

// LocalSpec describes a local workspace to create.
type LocalSpec struct {
	// Root is the absolute host directory, or "" for <LocalBaseDir>/<id>.
	Root string
	// Environment is added to every command run in the workspace.
	Environment map[string]string
}

// Workspace is a created or found workspace.
type Workspace struct {
	// ID is the workspace id (a UUID).
	ID string
	// Kind is "local" or "docker".
	Kind string
	// Root is the absolute root as seen inside the workspace.
	Root string
	// ContainerID is the container of a docker workspace, else "".
	ContainerID string
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
// non-empty directory is refused, so nothing already there can be lost.
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
	if err := e.registry.Put(Record{ID: id, Kind: "local", Root: root, Environment: spec.Environment}); err != nil {
		return nil, err
	}
	return &Workspace{ID: id, Kind: "local", Root: root, Backend: b}, nil
}

// AdoptLocal registers an existing local directory as a workspace (import).
// An already registered root keeps its id.
func (e *Engine) AdoptLocal(ctx context.Context, root string) (*Workspace, error) {
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("workspace root %q must be an absolute path", root)
	}
	root = filepath.Clean(root)
	rec, found, err := e.registry.FindByRoot("local", root)
	if err != nil {
		return nil, err
	}
	if err := e.CheckLocalRoot(root, rec.ID); err != nil {
		return nil, err
	}
	b := local.New(root)
	ok, err := b.Exists(ctx)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("no workspace directory at %s", root)
	}
	if !found {
		rec = Record{ID: uuid.NewString(), Kind: "local", Root: root}
		if err := e.registry.Put(rec); err != nil {
			return nil, err
		}
	}
	return &Workspace{ID: rec.ID, Kind: rec.Kind, Root: rec.Root, Backend: b}, nil
}

// Open finds the workspace with the given id. A workspace whose record is
// missing or whose directory vanished gives an error wrapping
// ErrWorkspaceGone.
func (e *Engine) Open(ctx context.Context, id string) (*Workspace, error) {
	rec, err := e.registry.Get(id)
	if errors.Is(err, ErrUnknownWorkspace) {
		return nil, fmt.Errorf("%w (or was never created with this local_base_dir): %w", ErrWorkspaceGone, err)
	}
	if err != nil {
		return nil, err
	}
	var b backend.Backend
	switch rec.Kind {
	case local.Kind:
		b = local.New(rec.Root)
	case docker.Kind:
		b = e.docker.Open(rec.ContainerID, rec.Root)
	default:
		return nil, fmt.Errorf("workspace %s has unsupported backend kind %q", id, rec.Kind)
	}
	ok, err := b.Exists(ctx)
	if err != nil {
		return nil, err
	}
	if !ok && rec.Kind == docker.Kind {
		return nil, fmt.Errorf("%w: %s (container %s was removed)", ErrWorkspaceGone, id, rec.ContainerID)
	}
	if !ok {
		return nil, fmt.Errorf("%w: %s (root %s is missing)", ErrWorkspaceGone, id, rec.Root)
	}
	return &Workspace{ID: rec.ID, Kind: rec.Kind, Root: rec.Root, ContainerID: rec.ContainerID, Backend: b}, nil
}

// Destroy removes the workspace with the given id. With keep set the
// directory stays and only the registry record goes. A workspace that is
// already gone is not an error.
func (e *Engine) Destroy(ctx context.Context, id string, keep bool) error {
	rec, err := e.registry.Get(id)
	if errors.Is(err, ErrUnknownWorkspace) {
		return nil
	}
	if err != nil {
		return err
	}
	if !keep {
		switch rec.Kind {
		case local.Kind:
			if err := local.New(rec.Root).Destroy(ctx); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		case docker.Kind:
			if err := e.docker.Remove(ctx, rec.ContainerID); err != nil {
				return err
			}
		default:
			return fmt.Errorf("workspace %s has unsupported backend kind %q", id, rec.Kind)
		}
	}
	return e.registry.Delete(id)
}
