package workspace

import (
	"context"
	"io"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/kubernetes"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/local"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/snapshot"
)

// driver is one kind of workspace, everything the engine does differently
// per kind. Each kind lives in its own files (kind_<kind>*.go):
// adding a kind means its driver there, its line in kindForms and
// newDrivers below, its creation function and its block in the provider's
// sandbox_workspace schema; no other kind's code changes.
type driver interface {
	// open finds the workspace ref names from what the backend reports;
	// an error wrapping ErrWorkspaceGone when it vanished. It only reads.
	open(ctx context.Context, ref Ref) (*Workspace, error)
	// destroy removes w and everything in it.
	destroy(ctx context.Context, w *Workspace) error
	// start makes a stopped w run again.
	start(ctx context.Context, w *Workspace) error
	// endpoints says where each exposed port is reached from the host.
	endpoints(ctx context.Context, w *Workspace, ports []int) ([]sandbox.ExposedPortEndpoint, error)
	// setEnvironment replaces the environment of w where that can change
	// in place (else the workspace is replaced and this does nothing).
	setEnvironment(ctx context.Context, w *Workspace, env map[string]string) error
	// mountBackend is the Python SDK's backend name for mount checks.
	mountBackend() string
	// checkMount refuses an in-container mount w cannot take.
	checkMount(ctx context.Context, w *Workspace, m *mount.Mount) error
	// mountsOnHost reports whether mount helpers run on the host, so a
	// mount path must stay inside the root.
	mountsOnHost() bool
	// secretEnvironment returns the values of the workspace's write-only
	// environment, to redact from what its commands print.
	secretEnvironment(ctx context.Context, w *Workspace) ([]string, error)
	// persist streams the tar of w's root to out, leaving out the excluded
	// workspace-relative paths and every mount point below the root
	// (snapshot.PersistRoot), and returns what it wrote.
	persist(ctx context.Context, w *Workspace, exclude []string, manifestDigest string, out io.Writer) (snapshot.Summary, error)
	// hydrate extracts an archive already validated with snapshot.Validate
	// below w's root and returns the number of regular files written.
	// (and writes at most what the limits allow).
	hydrate(ctx context.Context, w *Workspace, r io.Reader, l sandbox.OutputLimits) (int, error)
}

// kindForm is what is known of a kind without a workspace: how its ids
// are written (parse reads what follows "<kind>:", id is the whole id, for
// messages; splitEntry, when set, splits an entry id whose workspace part
// may itself hold slashes), which owners its files can have (checkOwner,
// nil for any), who owns a new root by default (rootOwner, nil for the
// first of users, else root) and whether an entry with no owner takes the
// root's (entryOwnerDefault, nil for always).
type kindForm struct {
	parse             func(id, rest string) (Ref, error)
	splitEntry        func(id, rest string) (wsRest, rel string, err error)
	checkOwner        func(owner string) error
	rootOwner         func(users []sandbox.User) string
	entryOwnerDefault func() bool
}

var kindForms = map[string]kindForm{
	local.Kind: {parse: parseLocalID, splitEntry: splitLocalEntryID, checkOwner: local.CheckOwner, rootOwner: localRootOwner,
		entryOwnerDefault: local.RunsAsRoot},
	docker.Kind:      {parse: parseDockerID},
	kubernetes.Kind:  {parse: parseKubernetesID},
	AgentSandboxKind: {parse: parseAgentSandboxID},
}

func newDrivers(e *Engine) map[string]driver {
	return map[string]driver{local.Kind: localDriver{e}, docker.Kind: dockerDriver{e}, kubernetes.Kind: kubernetesDriver{e},
		AgentSandboxKind: agentSandboxDriver{e}}
}

// Endpoints returns where each port of the workspace is reached from the
// host, in the order given; Port is the host port in each endpoint.
func (e *Engine) Endpoints(ctx context.Context, w *Workspace, ports []int) ([]sandbox.ExposedPortEndpoint, error) {
	return w.drv.endpoints(ctx, w, ports)
}

// MountBackend is the Python SDK's backend name of w for credential-boundary
// checks: "docker" or "unix_local".
func MountBackend(w *Workspace) string { return w.drv.mountBackend() }
