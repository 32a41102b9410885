package workspace

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"fmt"
	"io"
	"strings"

	"github.com/google/uuid"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/kubernetes"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/snapshot"
)

// CreateKubernetes creates a pod workspace with a new id: the pod (and the
// Service of its exposed ports) is created and waited for, the root
// created, and users and groups provisioned. Both are deleted again if any
// step fails.
func (e *Engine) CreateKubernetes(ctx context.Context, s spec.Kubernetes) (*Workspace, error) {
	id := uuid.NewString()
	if s.Root == "" {
		s.Root = DefaultDockerRoot
	}
	if err := CheckDockerRoot(s.Root); err != nil {
		return nil, err
	}
	b, err := e.kube.Create(ctx, kubernetes.Spec{Kubernetes: s, WorkspaceID: id})
	if err != nil {
		return nil, err
	}
	return &Workspace{ID: KubernetesID(id, s.Namespace), UUID: id, Kind: kubernetes.Kind, Root: s.Root, Running: true,
		Expiry: s.Expiry, Backend: b, drv: e.drivers[kubernetes.Kind], eng: e}, nil
}

// KubernetesID returns the id of a pod workspace.
func KubernetesID(uuid, namespace string) string {
	return kubernetes.Kind + ":" + uuid + ":" + namespace
}

// parseKubernetesID reads what follows "kubernetes:" in an id:
// "<uuid>:<namespace>".
func parseKubernetesID(id, rest string) (Ref, error) {
	u, ns, ok := strings.Cut(rest, ":")
	if !ok || !ValidUUID(u) || !validNamespace(ns) {
		return Ref{}, fmt.Errorf("%q is not a workspace id: after \"kubernetes:\" come the workspace UUID, \":\" and the "+
			"pod's namespace; %s", id, idHelp)
	}
	return Ref{Kind: kubernetes.Kind, UUID: u, Namespace: ns}, nil
}

// validNamespace checks a namespace name: a DNS label (RFC 1123).
func validNamespace(ns string) bool {
	if ns == "" || len(ns) > 63 || ns[0] == '-' || ns[len(ns)-1] == '-' {
		return false
	}
	for _, r := range ns {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			return false
		}
	}
	return true
}

// kubernetesDriver is the kubernetes kind: a pod named after the workspace
// UUID in the namespace the id names, on the configured cluster.
type kubernetesDriver struct{ e *Engine }

func (d kubernetesDriver) open(ctx context.Context, ref Ref) (*Workspace, error) {
	name := kubernetes.PodName(ref.UUID)
	p, ok, err := d.e.kube.LookupRecent(ctx, ref.Namespace, name)
	if err != nil {
		return nil, err
	}
	id := KubernetesID(ref.UUID, ref.Namespace)
	if !ok {
		return nil, fmt.Errorf("%w: %s (no pod %s in namespace %s)", ErrWorkspaceGone, id, name, ref.Namespace)
	}
	if p.Gone {
		return nil, fmt.Errorf("%w: %s (pod %s/%s ended: %s)", ErrWorkspaceGone, id, ref.Namespace, name, p.Reason)
	}
	root := p.Root
	if root == "" {
		root = DefaultDockerRoot
	}
	return &Workspace{ID: id, UUID: ref.UUID, Kind: kubernetes.Kind, Root: root, Running: p.Running, Expiry: p.Expiry,
		Backend: d.e.kube.Open(ref.Namespace, name, root), drv: d, eng: d.e}, nil
}

func (d kubernetesDriver) destroy(ctx context.Context, w *Workspace) error {
	ref, err := ParseID(w.ID)
	if err != nil {
		return err
	}
	return d.e.kube.Remove(ctx, ref.Namespace, kubernetes.PodName(ref.UUID))
}

// start fails: a pod whose container stopped cannot be started again.
func (kubernetesDriver) start(_ context.Context, w *Workspace) error {
	return fmt.Errorf("the pod of workspace %s does not run and cannot be restarted; the next plan replaces it", w.ID)
}

// endpoints are the in-cluster addresses of the workspace's Service.
func (kubernetesDriver) endpoints(ctx context.Context, w *Workspace, ports []int) ([]sandbox.ExposedPortEndpoint, error) {
	b, ok := w.Backend.(*kubernetes.Backend)
	if !ok {
		return nil, fmt.Errorf("workspace %s is not a kubernetes workspace", w.ID)
	}
	return b.Endpoints(ctx, ports)
}

// setEnvironment does nothing: a pod's environment is fixed when it is
// created (changing it replaces the workspace).
func (kubernetesDriver) setEnvironment(context.Context, *Workspace, map[string]string) error {
	return nil
}

func (kubernetesDriver) mountBackend() string { return kubernetes.Kind }

// checkMount requires the privileged pod an in-container mount needs:
// Kubernetes grants /dev/fuse and the mount capability to no narrower
// security context without a device plugin.
func (d kubernetesDriver) checkMount(ctx context.Context, w *Workspace, m *mount.Mount) error {
	info, err := d.e.DescribeKubernetes(ctx, w)
	if err != nil {
		return err
	}
	if !info.Privileged {
		return fmt.Errorf("%w: workspace %s is a pod that is not privileged; an in-container %s mount needs /dev/fuse "+
			"and the mount capability: set privileged = true in the workspace's kubernetes block (this replaces the pod)",
			ErrNoFUSE, w.ID, m.Strategy.Pattern.Type)
	}
	return nil
}

func (kubernetesDriver) mountsOnHost() bool { return false }

// secretEnvironment is empty: pod workspaces take no write-only
// environment.
func (kubernetesDriver) secretEnvironment(context.Context, *Workspace) ([]string, error) {
	return nil, nil
}

func (kubernetesDriver) persist(ctx context.Context, w *Workspace, exclude []string, manifestDigest string, out io.Writer) (snapshot.Summary, error) {
	return persistInContainer(ctx, w, exclude, manifestDigest, out)
}

func (kubernetesDriver) hydrate(ctx context.Context, w *Workspace, r io.Reader, l sandbox.OutputLimits) (int, error) {
	return hydrateInContainer(ctx, w, r, l)
}

// DescribeKubernetes reads back what a kubernetes workspace was created
// with, from its pod (every field but StartTimeout).
func (e *Engine) DescribeKubernetes(ctx context.Context, w *Workspace) (spec.Kubernetes, error) {
	b, ok := w.Backend.(*kubernetes.Backend)
	if !ok {
		return spec.Kubernetes{}, fmt.Errorf("workspace %s is not a kubernetes workspace", w.ID)
	}
	return b.Describe(ctx)
}

// FindKubernetes returns the pod workspace in namespace ns whose pod is
// named podName or, when podName is "", the one carrying every label of
// labels. It only reads.
func (e *Engine) FindKubernetes(ctx context.Context, ns, podName string, labels map[string]string) (*Workspace, error) {
	uuid, err := e.kube.FindPod(ctx, ns, podName, labels)
	if err != nil {
		return nil, err
	}
	return e.Open(ctx, KubernetesID(uuid, ns))
}

// CheckKubernetesLookup validates the keys of a pod workspace lookup
// (FindKubernetes) without contacting the cluster; a bad one is a
// *KubernetesFieldError.
func CheckKubernetesLookup(ns, podName string, labels map[string]string) error {
	return kubernetes.CheckLookup(ns, podName, labels)
}

// CheckKubernetesConfig reads the provider's cluster configuration (the
// kubeconfig file and its context, or host and credentials) without
// contacting the cluster.
func (e *Engine) CheckKubernetesConfig() error { return e.kube.Configured() }

// KubernetesClusterID returns the identity of the cluster the provider is
// configured for (see kubernetes.Cluster.ClusterID); "" when the cluster
// does not let the provider read it.
func (e *Engine) KubernetesClusterID(ctx context.Context) (string, error) {
	return e.kube.ClusterID(ctx)
}

// PodNamespace returns the namespace of a kubernetes workspace's pod, ""
// for another kind.
func PodNamespace(w *Workspace) string {
	if b, ok := w.Backend.(*kubernetes.Backend); ok {
		return b.Namespace()
	}
	return ""
}

// PodName returns the name of a kubernetes workspace's pod (and Service).
func PodName(w *Workspace) string { return kubernetes.PodName(w.UUID) }

// CheckKubernetesSpec validates what the configuration alone decides of a
// pod workspace (names, labels, quantities, pull policy), without
// contacting the cluster.
func CheckKubernetesSpec(s spec.Kubernetes) error {
	if s.Root == "" {
		s.Root = DefaultDockerRoot
	}
	if s.Image == "" {
		s.Image = "unknown"
	}
	if s.Namespace == "" {
		s.Namespace = "unknown"
	}
	return kubernetes.Spec{Kubernetes: s}.Validate()
}

// SameQuantity reports whether two Kubernetes quantities are the same
// amount however spelled ("0.5" and "500m", "1Gi" and "1024Mi").
func SameQuantity(a, b string) bool { return kubernetes.SameQuantity(a, b) }

// CheckKubernetesGrants refuses the path grants a pod workspace cannot
// have: one with a host_path, since the provider does not mount node
// paths into pods. A problem is a *GrantError.
func CheckKubernetesGrants(grants []posix.PathGrant) error {
	for i, g := range grants {
		if g.HostPath != nil {
			return &spec.GrantError{Index: i, Field: "host_path", Reason: "a kubernetes workspace does not mount host paths ('" +
				g.Path + "'): the pod runs on a node of the cluster, not on the machine running Terraform; copy the files " +
				"in with sandbox_local_dir instead"}
		}
	}
	return nil
}

// ValidateKubernetesConfig validates how the provider reaches the cluster,
// without contacting it.
func ValidateKubernetesConfig(c spec.KubernetesConfig) error { return kubernetes.CheckConfig(c) }
