package workspace

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/kubernetes"
)

// agent-sandbox SandboxTemplates and SandboxWarmPools on the provider's
// cluster (the kubernetes kind's): the engine's door to them. Nothing here
// keeps state; the objects are found by namespace and name.

// ErrNoAgentSandbox is wrapped by the errors of a cluster that does not
// serve the agent-sandbox kinds (its CRDs are not installed).
var ErrNoAgentSandbox = kubernetes.ErrNoAgentSandbox

// CreateKubernetesTemplate creates the SandboxTemplate of t; its root
// defaults to DefaultDockerRoot.
func (e *Engine) CreateKubernetesTemplate(ctx context.Context, t spec.KubernetesTemplate) error {
	t = templateDefaults(t)
	if err := CheckKubernetesTemplate(t); err != nil {
		return err
	}
	return e.kube.CreateTemplate(ctx, t)
}

// UpdateKubernetesTemplate changes the SandboxTemplate of t in place.
func (e *Engine) UpdateKubernetesTemplate(ctx context.Context, t spec.KubernetesTemplate) error {
	t = templateDefaults(t)
	if err := CheckKubernetesTemplate(t); err != nil {
		return err
	}
	return e.kube.UpdateTemplate(ctx, t)
}

// ReadKubernetesTemplate reads the SandboxTemplate ns/name back; found is
// false when there is none. It only reads.
func (e *Engine) ReadKubernetesTemplate(ctx context.Context, ns, name string) (spec.KubernetesTemplate, bool, error) {
	return e.kube.ReadTemplate(ctx, ns, name)
}

// DeleteKubernetesTemplate deletes the SandboxTemplate ns/name and waits
// until it is gone.
func (e *Engine) DeleteKubernetesTemplate(ctx context.Context, ns, name string) error {
	return e.kube.DeleteTemplate(ctx, ns, name)
}

// CreateKubernetesWarmPool creates the SandboxWarmPool of p, without
// waiting for its Sandboxes (WaitKubernetesWarmPool does).
func (e *Engine) CreateKubernetesWarmPool(ctx context.Context, p spec.KubernetesWarmPool) error {
	return e.kube.CreateWarmPool(ctx, p)
}

// UpdateKubernetesWarmPool sets the replicas and template of the
// SandboxWarmPool of p in place.
func (e *Engine) UpdateKubernetesWarmPool(ctx context.Context, p spec.KubernetesWarmPool) error {
	return e.kube.UpdateWarmPool(ctx, p)
}

// ReadKubernetesWarmPool reads the SandboxWarmPool ns/name; found is false
// when there is none. It only reads.
func (e *Engine) ReadKubernetesWarmPool(ctx context.Context, ns, name string) (spec.KubernetesWarmPoolStatus, bool, error) {
	return e.kube.ReadWarmPool(ctx, ns, name)
}

// WaitKubernetesWarmPool waits until the SandboxWarmPool ns/name has at
// least replicas ready Sandboxes, or ctx ends (the error then says how
// many are ready and why one is not).
func (e *Engine) WaitKubernetesWarmPool(ctx context.Context, ns, name string, replicas int64) (spec.KubernetesWarmPoolStatus, error) {
	return e.kube.WaitWarmPool(ctx, ns, name, replicas)
}

// DeleteKubernetesWarmPool deletes the SandboxWarmPool ns/name and waits
// until it and its Sandboxes are gone.
func (e *Engine) DeleteKubernetesWarmPool(ctx context.Context, ns, name string) error {
	return e.kube.DeleteWarmPool(ctx, ns, name)
}

func templateDefaults(t spec.KubernetesTemplate) spec.KubernetesTemplate {
	if t.Pod.Root == "" {
		t.Pod.Root = DefaultDockerRoot
	}
	return t
}

// CheckKubernetesTemplate validates what the configuration decides of a
// SandboxTemplate without contacting the cluster: its name and namespace,
// its pod (as CheckKubernetesSpec) and the size of its root volume. A
// problem is a *spec.KubernetesFieldError naming the attribute ("name",
// "namespace", "image", "resources", "root", "volume_claim_template", ...).
// Empty values stand for unknown ones and pass.
func CheckKubernetesTemplate(t spec.KubernetesTemplate) error {
	if t.Name != "" {
		if err := CheckSandboxTemplateName(t.Name); err != nil {
			return &spec.KubernetesFieldError{Field: "name", Err: err}
		}
	}
	if err := CheckKubernetesSpec(t.Pod); err != nil {
		return err
	}
	if t.RootVolume != nil && t.RootVolume.Size != "" {
		if err := CheckVolumeSize(t.RootVolume.Size); err != nil {
			return &spec.KubernetesFieldError{Field: "volume_claim_template", Err: err}
		}
	}
	return nil
}

// CheckSandboxTemplateName checks the name of a SandboxTemplate (a DNS-1123
// subdomain).
func CheckSandboxTemplateName(name string) error {
	return kubernetes.ValidateName(kubernetes.KindSandboxTemplate, name)
}

// CheckSandboxWarmPoolName checks the name of a SandboxWarmPool (a DNS-1123
// subdomain).
func CheckSandboxWarmPoolName(name string) error {
	return kubernetes.ValidateName(kubernetes.KindSandboxWarmPool, name)
}

// CheckNamespaceName checks the name of a namespace (a DNS-1123 label).
func CheckNamespaceName(ns string) error {
	if err := kubernetes.CheckLookup(ns, "", nil); err != nil {
		var fe *spec.KubernetesFieldError
		if errors.As(err, &fe) {
			return fe.Err
		}
		return err
	}
	return nil
}

// CheckVolumeSize checks the size of a volume: a Kubernetes quantity above
// zero ("10Gi").
func CheckVolumeSize(size string) error {
	_, err := kubernetes.ParseVolumeSize(size)
	return err
}

// KubernetesObjectID is the id of a namespaced object: "<namespace>/<name>".
func KubernetesObjectID(ns, name string) string { return ns + "/" + name }

// ParseKubernetesObjectID reads an id of KubernetesObjectID, as an import
// gives it; what names the kind, for the error.
func ParseKubernetesObjectID(id, what string) (ns, name string, err error) {
	ns, name, ok := strings.Cut(id, "/")
	if !ok || CheckNamespaceName(ns) != nil || name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("%q is not the id of a %s: write <namespace>/<name>, such as agents/python", id, what)
	}
	return ns, name, nil
}
