package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/local"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

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
	b := local.New(root).KeepDigests()
	if err := b.Create(ctx); err != nil {
		return nil, err
	}
	mk := local.Marker{ID: id, Environment: spec.Environment}
	if x := spec.Expiry; !x.IsZero() {
		mk.Lifetime, mk.OnExpiry, mk.ExpiresAt = x.Lifetime, x.OnExpiry, x.String()
	}
	if err := local.ClaimMarker(root, mk); err != nil {
		return nil, err
	}
	return &Workspace{ID: LocalID(id, root), UUID: id, Kind: local.Kind, Root: root, Running: true, Environment: spec.Environment,
		Expiry: spec.Expiry, Backend: b, drv: e.drivers[local.Kind], eng: e}, nil
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
		return nil, fmt.Errorf("%s is not a workspace of this provider (only a directory the provider created carries the marker): %w", root, err)
	}
	return e.Open(ctx, LocalID(m.ID, root))
}

// LocalID returns the id of a local workspace.
func LocalID(uuid, root string) string { return local.Kind + ":" + uuid + ":" + root }

// localRootOwner is who owns a new local root: the user the provider runs
// as (a local workspace has no users of its own).
func localRootOwner([]sandbox.User) string { return local.OwnUser() }

// localDriver is the local kind: a host directory carrying the workspace
// marker.
type localDriver struct{ e *Engine }

func (d localDriver) open(ctx context.Context, ref Ref) (*Workspace, error) {
	b := local.New(ref.Root).KeepDigests()
	ok, err := b.Exists(ctx)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: %s (root %s is missing)", ErrWorkspaceGone, ref, ref.Root)
	}
	m, err := readLocalMarker(ref.Root)
	switch {
	case err != nil && errors.Is(err, local.ErrNoMarker) && d.e.legacyRoot(ref):
		m = local.Marker{ID: ref.UUID, Environment: d.e.legacyEnvironment(ref.UUID)}
	case err != nil && errors.Is(err, local.ErrNoMarker):
		return nil, fmt.Errorf("%w: directory %s is not workspace %s: %w", ErrNotWorkspace, ref.Root, ref.UUID, err)
	case err != nil:
		return nil, err
	case m.ID != ref.UUID:
		return nil, fmt.Errorf("%w: directory %s is workspace %s, not %s: the workspace was re-created or replaced by another",
			ErrNotWorkspace, ref.Root, m.ID, ref.UUID)
	}
	return &Workspace{ID: LocalID(ref.UUID, ref.Root), UUID: ref.UUID, Kind: local.Kind, Root: ref.Root, Running: true,
		Environment: m.Environment, Expiry: markerExpiry(m), Backend: b, drv: d, eng: d.e}, nil
}

// destroy removes the root and everything below it (never the mounted
// filesystems below it, which local.Backend.Destroy refuses).
func (localDriver) destroy(ctx context.Context, w *Workspace) error {
	if err := local.New(w.Root).Destroy(ctx); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// start does nothing: a directory never stops.
func (localDriver) start(context.Context, *Workspace) error { return nil }

// endpoints are 127.0.0.1 and the port itself (design/sdk-model.md §6.3).
func (localDriver) endpoints(_ context.Context, _ *Workspace, ports []int) ([]sandbox.ExposedPortEndpoint, error) {
	out := make([]sandbox.ExposedPortEndpoint, 0, len(ports))
	for _, p := range ports {
		out = append(out, sandbox.ExposedPortEndpoint{Host: "127.0.0.1", Port: p})
	}
	return out, nil
}

// setEnvironment rewrites the marker, which holds the environment.
func (d localDriver) setEnvironment(_ context.Context, w *Workspace, env map[string]string) error {
	m := local.Marker{ID: w.UUID, Environment: env}
	if x := w.Expiry; !x.IsZero() { // the expiry stays as created
		m.Lifetime, m.OnExpiry, m.ExpiresAt = x.Lifetime, x.OnExpiry, x.String()
	}
	err := local.UpdateMarker(w.Root, m)
	if errors.Is(err, local.ErrNoMarker) && d.e.legacyRoot(Ref{Kind: local.Kind, UUID: w.UUID, Root: w.Root}) {
		err = local.ClaimMarker(w.Root, m) // a root from before markers gets its own now
	}
	return err
}

func (localDriver) mountBackend() string { return "unix_local" }

func (localDriver) checkMount(context.Context, *Workspace, *mount.Mount) error { return nil }

// mountsOnHost is true: mount helpers of a local workspace run on the host.
func (localDriver) mountsOnHost() bool { return true }

// parseLocalID reads what follows "local:" in an id: "<uuid>:<root>".
func parseLocalID(id, rest string) (Ref, error) {
	u, root, ok := strings.Cut(rest, ":")
	if !ok || !ValidUUID(u) {
		return Ref{}, fmt.Errorf("%q is not a workspace id: a local id is \"local:<uuid>:<root>\"; %s", id, idHelp)
	}
	if !filepath.IsAbs(root) || filepath.Clean(root) != root || root == "/" {
		return Ref{}, fmt.Errorf("%q is not a workspace id: its root %q must be an absolute, clean directory other than /", id, root)
	}
	return Ref{Kind: local.Kind, UUID: u, Root: root}, nil
}

// splitLocalEntryID splits "<uuid>:<root>/<path>" (what follows "local:" in
// an entry id) where the directory carrying the UUID's marker ends: the
// root may itself hold slashes. It only reads; nested workspaces are
// refused, so at most one directory along the path matches.
func splitLocalEntryID(id, rest string) (wsRest, rel string, err error) {
	u, after, ok := strings.Cut(rest, ":")
	if !ok || !ValidUUID(u) {
		return "", "", fmt.Errorf("%q is not <workspace_id>/<path>", id)
	}
	for i := 1; i < len(after); i++ {
		if after[i] != '/' {
			continue
		}
		if m, merr := readLocalMarker(after[:i]); merr == nil && m.ID == u {
			return u + ":" + after[:i], after[i+1:], nil
		}
	}
	return "", "", fmt.Errorf("%q: no directory along %s carries the marker of workspace %s", id, after, u)
}

// secretEnvironment is empty: a local workspace has no write-only
// environment (it would have to be stored in a file).
func (localDriver) secretEnvironment(context.Context, *Workspace) ([]string, error) { return nil, nil }

// markerExpiry is the expiry a marker records (zero when none, or when it
// does not parse).
func markerExpiry(m local.Marker) sandbox.Expiry {
	x, err := sandbox.ParseExpiry(m.Lifetime, m.OnExpiry, m.ExpiresAt)
	if err != nil {
		return sandbox.Expiry{}
	}
	return x
}
