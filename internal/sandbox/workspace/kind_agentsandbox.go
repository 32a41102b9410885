package workspace

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/kubernetes"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/snapshot"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"
)

// AgentSandboxKind is the kind of workspaces that are agent-sandbox
// objects: a Sandbox the provider creates, or a SandboxClaim on a warm
// pool. Their pods are reached as a kubernetes workspace's pod is.
const AgentSandboxKind = "agent_sandbox"

// The object an agent_sandbox id names (Ref.Object).
const (
	AgentObjectSandbox = "sandbox"
	AgentObjectClaim   = "claim"
)

// AgentSandboxID returns the id of an agent_sandbox workspace:
// "agent_sandbox:<sandbox|claim>:<uuid>:<namespace>".
func AgentSandboxID(object, uuid, namespace string) string {
	return Ref{Kind: AgentSandboxKind, Object: object, UUID: uuid, Namespace: namespace}.String()
}

// parseAgentSandboxID reads what follows "agent_sandbox:" in an id.
func parseAgentSandboxID(id, rest string) (Ref, error) {
	parts := strings.Split(rest, ":")
	if len(parts) != 3 || (parts[0] != AgentObjectSandbox && parts[0] != AgentObjectClaim) || !ValidUUID(parts[1]) ||
		!validNamespace(parts[2]) {
		return Ref{}, fmt.Errorf("%q is not a workspace id: after \"agent_sandbox:\" come \"sandbox\" or \"claim\", \":\", the "+
			"workspace UUID, \":\" and the namespace; %s", id, idHelp)
	}
	return Ref{Kind: AgentSandboxKind, Object: parts[0], UUID: parts[1], Namespace: parts[2]}, nil
}

func agentRef(ref Ref) kubernetes.AgentRef {
	return kubernetes.AgentRef{Namespace: ref.Namespace, Name: kubernetes.PodName(ref.UUID), Claim: ref.Object == AgentObjectClaim}
}

// CreateAgentSandbox creates an agent_sandbox workspace with a new id: a
// SandboxClaim on s.WarmPool, or else a Sandbox with s's pod; it waits for
// its pod, installs the helper, creates the root and provisions users and
// groups. The object is deleted again if a step fails.
func (e *Engine) CreateAgentSandbox(ctx context.Context, s spec.AgentSandbox) (*Workspace, error) {
	id := uuid.NewString()
	ks := kubernetes.Spec{Kubernetes: s.Kubernetes, WorkspaceID: id}
	object := AgentObjectSandbox
	var (
		b   *kubernetes.Backend
		err error
	)
	if s.WarmPool != "" {
		object = AgentObjectClaim
		b, _, err = e.kube.ClaimSandbox(ctx, ks, s.WarmPool, kubernetes.ClaimOptions{})
	} else {
		if ks.Root == "" {
			ks.Root = DefaultDockerRoot
		}
		if err := CheckDockerRoot(ks.Root); err != nil {
			return nil, err
		}
		var o kubernetes.SandboxOptions
		if s.VolumeSize != "" {
			o.Root = &kubernetes.RootVolume{Size: s.VolumeSize, StorageClassName: s.StorageClassName}
		}
		b, err = e.kube.CreateSandbox(ctx, ks, o)
	}
	if err != nil {
		return nil, err
	}
	return &Workspace{ID: AgentSandboxID(object, id, s.Namespace), UUID: id, Kind: AgentSandboxKind, Root: b.Root(), Running: true,
		Expiry: s.Expiry, Backend: b, drv: e.drivers[AgentSandboxKind], eng: e}, nil
}

// agentSandboxDriver is the agent_sandbox kind.
type agentSandboxDriver struct{ e *Engine }

func (d agentSandboxDriver) open(ctx context.Context, ref Ref) (*Workspace, error) {
	ar := agentRef(ref)
	aw, found, err := d.e.kube.LookupAgent(ctx, ar, backend.RecentRead)
	if err != nil {
		return nil, err
	}
	id := ref.String()
	if !found {
		return nil, fmt.Errorf("%w: %s (no %s)", ErrWorkspaceGone, id, ar)
	}
	w := &Workspace{ID: id, UUID: ref.UUID, Kind: AgentSandboxKind, drv: d, eng: d.e}
	switch {
	case aw.PodFound && aw.Pod.Running && !aw.Pod.Gone:
		w.Running, w.Root, w.Expiry = true, aw.Pod.Root, aw.Pod.Expiry
	case aw.SandboxRead:
		// Suspended, expired and kept, or its pod on its way: no pod to
		// work in, but the workspace is still there.
		w.Root, w.Expiry = aw.Sandbox.Root, aw.Sandbox.Expiry
	default:
		// A claim whose Sandbox is gone (expired and kept) or not there
		// yet.
		w.Expiry = aw.Claim.Expiry
	}
	if w.Root == "" {
		w.Root = DefaultDockerRoot
	}
	name := aw.SandboxName
	if name == "" {
		name = ar.Name
	}
	w.Backend = d.e.kube.Open(ref.Namespace, name, w.Root)
	return w, nil
}

func (d agentSandboxDriver) destroy(ctx context.Context, w *Workspace) error {
	ref, err := ParseID(w.ID)
	if err != nil {
		return err
	}
	return d.e.kube.RemoveAgent(ctx, agentRef(ref))
}

// start resumes a suspended Sandbox; an expired one cannot be (the next
// plan replaces it).
func (d agentSandboxDriver) start(ctx context.Context, w *Workspace) error {
	return d.setRunState(ctx, w, RunRunning)
}

// setRunState suspends (RunStopped) or resumes (RunRunning) the workspace's
// Sandbox; pausing is not something a Sandbox does.
func (d agentSandboxDriver) setRunState(ctx context.Context, w *Workspace, state string) error {
	if state == RunPaused {
		return fmt.Errorf("an agent_sandbox workspace cannot be paused: use run_state = \"stopped\" to suspend its Sandbox")
	}
	if !w.Running && w.Expiry.Expired(time.Now()) {
		// Its controller ended it: it never runs again.
		return fmt.Errorf("%w: %s expired at %s; the next plan replaces it", ErrWorkspaceGone, w.ID, w.Expiry)
	}
	ref, err := ParseID(w.ID)
	if err != nil {
		return err
	}
	b, ok := w.Backend.(*kubernetes.Backend)
	if !ok {
		return fmt.Errorf("workspace %s is not an agent_sandbox workspace", w.ID)
	}
	return d.e.kube.SetSuspended(ctx, agentRef(ref), b.PodName(), state == RunStopped, kubernetes.DefaultStartTimeout)
}

// endpoints are not offered: the Sandbox's Service is headless.
func (agentSandboxDriver) endpoints(_ context.Context, w *Workspace, ports []int) ([]sandbox.ExposedPortEndpoint, error) {
	if len(ports) == 0 {
		return nil, nil
	}
	return nil, fmt.Errorf("workspace %s is an agent_sandbox workspace, which exposes no ports", w.ID)
}

// setEnvironment does nothing: the pod's environment is its template's.
func (agentSandboxDriver) setEnvironment(context.Context, *Workspace, map[string]string) error {
	return nil
}

func (agentSandboxDriver) mountBackend() string { return kubernetes.Kind }

func (d agentSandboxDriver) checkMount(ctx context.Context, w *Workspace, m *mount.Mount) error {
	return kubernetesDriver(d).checkMount(ctx, w, m)
}

func (agentSandboxDriver) mountsOnHost() bool { return false }

func (agentSandboxDriver) secretEnvironment(context.Context, *Workspace) ([]string, error) {
	return nil, nil
}

func (agentSandboxDriver) persist(ctx context.Context, w *Workspace, exclude []string, manifestDigest string, out io.Writer) (snapshot.Summary, error) {
	return persistInContainer(ctx, w, exclude, manifestDigest, out)
}

func (agentSandboxDriver) hydrate(ctx context.Context, w *Workspace, r io.Reader, l sandbox.OutputLimits) (int, error) {
	return hydrateInContainer(ctx, w, r, l)
}

// SandboxName returns the name of the Sandbox (and pod) serving an
// agent_sandbox workspace, "" for another kind.
func SandboxName(w *Workspace) string {
	if w.Kind != AgentSandboxKind {
		return ""
	}
	if b, ok := w.Backend.(*kubernetes.Backend); ok {
		return b.PodName()
	}
	return ""
}

// CheckAgentName validates, without contacting the cluster, a name the
// agent_sandbox block gives: "namespace" (a DNS label) or "warm_pool" (a
// SandboxWarmPool name).
func CheckAgentName(field, name string) error {
	if field == "namespace" {
		if !validNamespace(name) {
			return fmt.Errorf("%q is not a namespace name: lower-case letters, digits and '-', at most 63, starting and "+
				"ending with a letter or digit", name)
		}
		return nil
	}
	return kubernetes.ValidateName(kubernetes.KindSandboxWarmPool, name)
}

// PrimeWarmPool installs the file helper into the ready members of the
// SandboxWarmPool ns/pool that have none, so claims that take them start
// at once; it returns how many it primed.
func (e *Engine) PrimeWarmPool(ctx context.Context, ns, pool string) (int, error) {
	return e.kube.PrimeWarmPool(ctx, ns, pool)
}

// CheckAgentSandbox looks at the cluster, read-only, for a new
// agent_sandbox workspace in ns: an error only when the cluster answers
// that it lacks the agent-sandbox kinds or the namespace.
func (e *Engine) CheckAgentSandbox(ctx context.Context, ns string, claim bool) error {
	return e.kube.CheckAgentSandbox(ctx, ns, claim)
}

// DescribeAgentSandbox reads back what an agent_sandbox workspace was
// created with, from its object: a claim's warm pool, or a Sandbox's pod
// settings, root, users, groups and root volume.
func (e *Engine) DescribeAgentSandbox(ctx context.Context, w *Workspace) (spec.AgentSandbox, error) {
	ref, err := ParseID(w.ID)
	if err != nil {
		return spec.AgentSandbox{}, err
	}
	if ref.Kind != AgentSandboxKind {
		return spec.AgentSandbox{}, fmt.Errorf("workspace %s is not an agent_sandbox workspace", w.ID)
	}
	a, err := e.kube.DescribeAgent(ctx, agentRef(ref))
	if err != nil {
		return spec.AgentSandbox{}, err
	}
	return spec.AgentSandbox{Kubernetes: a.Pod.Kubernetes, WarmPool: a.WarmPool, VolumeSize: a.VolumeSize,
		StorageClassName: a.StorageClassName}, nil
}
