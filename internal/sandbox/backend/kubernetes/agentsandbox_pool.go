package kubernetes

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/incontainer"
)

// SandboxTemplates and SandboxWarmPools declared on their own (not as the
// workspace of one Sandbox): created, read back, changed in place and
// deleted through the dynamic client. Both carry the provider's
// managed-by label. A cluster without the agent-sandbox CRDs fails every
// call with an error wrapping ErrNoAgentSandbox (agentErr).

// rootVolume is the backend's RootVolume of v (nil without one).
func rootVolume(v *spec.KubernetesRootVolume) *RootVolume {
	if v == nil {
		return nil
	}
	return &RootVolume{Size: v.Size, StorageClassName: v.StorageClassName}
}

// templateObject is the SandboxTemplate of t whose pods get the helper of
// digest.
func templateObject(t spec.KubernetesTemplate, digest string) (*unstructured.Unstructured, error) {
	s := Spec{Kubernetes: t.Pod}
	if err := ValidateName(KindSandboxTemplate, t.Name); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s.SandboxTemplate(t.Name, digest, TemplateOptions{
		Labels: map[string]string{LabelManagedBy: ManagedBy}, Root: rootVolume(t.RootVolume),
		ManagedNetworkPolicy: t.ManagedNetworkPolicy,
	})
}

// CreateTemplate creates the SandboxTemplate of t in t.Pod.Namespace.
func (c *Cluster) CreateTemplate(ctx context.Context, t spec.KubernetesTemplate) error {
	h, err := incontainer.FindHelper()
	if err != nil {
		return err
	}
	u, err := templateObject(t, h.Digest)
	if err != nil {
		return err
	}
	err = c.createObject(ctx, SandboxTemplateResource, u)
	return err
}

// UpdateTemplate replaces what t declares of the SandboxTemplate in place
// (its pod template, claim template and network policy management),
// keeping the rest of its spec and its other labels. Sandboxes made from
// it before keep their pods: a SandboxWarmPool replaces its stale ones as
// its update strategy says (by default only when they are claimed or
// deleted).
func (c *Cluster) UpdateTemplate(ctx context.Context, t spec.KubernetesTemplate) error {
	h, err := incontainer.FindHelper()
	if err != nil {
		return err
	}
	want, err := templateObject(t, h.Digest)
	if err != nil {
		return err
	}
	ns, name := t.Pod.Namespace, t.Name
	dc, err := c.dynamic()
	if err != nil {
		return err
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, found, err := c.getObject(ctx, SandboxTemplateResource, ns, name)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("%s %s/%s does not exist (deleted outside Terraform?)", KindSandboxTemplate, ns, name)
		}
		spec, _, _ := unstructured.NestedMap(cur.Object, "spec")
		if spec == nil {
			spec = map[string]any{}
		}
		delete(spec, "volumeClaimTemplates")
		for k, v := range want.Object["spec"].(map[string]any) { //nolint:forcetypeassert // built by object()
			spec[k] = v
		}
		cur.Object["spec"] = spec
		labels := cur.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[LabelManagedBy] = ManagedBy
		cur.SetLabels(labels)
		return agentErr(call(ctx, func() error {
			_, uerr := dc.Resource(SandboxTemplateResource).Namespace(ns).Update(ctx, cur, metav1.UpdateOptions{})
			return uerr
		}), SandboxTemplateResource, "update", ns, name)
	})
	return err
}

// ReadTemplate reads the SandboxTemplate ns/name back into the template it
// declares; found is false when there is none (or it is being deleted).
func (c *Cluster) ReadTemplate(ctx context.Context, ns, name string) (spec.KubernetesTemplate, bool, error) {
	u, found, err := c.getObject(ctx, SandboxTemplateResource, ns, name)
	if err != nil || !found || u.GetDeletionTimestamp() != nil {
		return spec.KubernetesTemplate{}, false, err
	}
	t, err := readTemplate(u)
	if err != nil {
		return spec.KubernetesTemplate{}, false, fmt.Errorf("reading %s %s/%s: %w", KindSandboxTemplate, ns, name, err)
	}
	return t, true, nil
}

// readTemplate is the template a SandboxTemplate object declares: its pod
// template read as the workspace pod is (describePod), the claim template
// of the root volume, and its network policy management (Managed when
// unset, the controller's default). The object is untrusted: a field of
// the wrong shape is an error, never a panic.
func readTemplate(u *unstructured.Unstructured) (spec.KubernetesTemplate, error) {
	t := spec.KubernetesTemplate{Name: u.GetName()}
	var pts corev1.PodTemplateSpec
	if raw, found, err := unstructured.NestedFieldNoCopy(u.Object, "spec", "podTemplate"); err != nil {
		return t, fmt.Errorf("spec.podTemplate: %w", err)
	} else if found && raw != nil {
		m, ok := raw.(map[string]any)
		if !ok {
			return t, fmt.Errorf("spec.podTemplate is a %T, not an object", raw)
		}
		// Through JSON, so that numbers of any decoded type convert.
		b, err := json.Marshal(m)
		if err != nil {
			return t, fmt.Errorf("spec.podTemplate: %w", err)
		}
		if err := json.Unmarshal(b, &pts); err != nil {
			return t, fmt.Errorf("spec.podTemplate is not a pod template: %w", err)
		}
	}
	p := &corev1.Pod{ObjectMeta: pts.ObjectMeta, Spec: pts.Spec}
	p.Namespace = u.GetNamespace()
	t.Pod = describePod(p).Kubernetes
	t.Pod.ExposedPorts, t.Pod.Users, t.Pod.Groups, t.Pod.Egress = nil, nil, nil, false
	var err error
	t.ManagedNetworkPolicy = str(u.Object, &err, "spec", "networkPolicyManagement") != "Unmanaged"
	if err != nil {
		return t, err
	}
	vcts, _, err := unstructured.NestedFieldNoCopy(u.Object, "spec", "volumeClaimTemplates")
	if err != nil {
		return t, fmt.Errorf("spec.volumeClaimTemplates: %w", err)
	}
	list, _ := vcts.([]any)
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return t, fmt.Errorf("spec.volumeClaimTemplates[%d] is a %T, not an object", i, e)
		}
		if str(m, &err, "metadata", "name") != rootVolumeName {
			continue
		}
		t.RootVolume = &spec.KubernetesRootVolume{
			Size:             str(m, &err, "spec", "resources", "requests", string(corev1.ResourceStorage)),
			StorageClassName: str(m, &err, "spec", "storageClassName"),
		}
		if err != nil {
			return t, fmt.Errorf("spec.volumeClaimTemplates[%d].%w", i, err)
		}
	}
	return t, nil
}

// DeleteTemplate deletes the SandboxTemplate ns/name and waits until it is
// gone; one already gone is not an error. Sandboxes made from it keep
// running.
func (c *Cluster) DeleteTemplate(ctx context.Context, ns, name string) error {
	if err := c.deleteObject(ctx, SandboxTemplateResource, ns, name); err != nil {
		return err
	}
	return c.waitGone(ctx, SandboxTemplateResource, ns, name)
}

// CreateWarmPool creates the SandboxWarmPool of p. It does not wait for
// its Sandboxes (WaitWarmPool does).
func (c *Cluster) CreateWarmPool(ctx context.Context, p spec.KubernetesWarmPool) error {
	if err := checkWarmPool(p); err != nil {
		return err
	}
	u := SandboxWarmPool(p.Namespace, p.Name, p.Template, int32(p.Replicas), map[string]string{LabelManagedBy: ManagedBy}) //nolint:gosec // checked
	err := c.createObject(ctx, SandboxWarmPoolResource, u)
	return err
}

// UpdateWarmPool sets the replicas and template of the SandboxWarmPool in
// place (a merge patch of its spec).
func (c *Cluster) UpdateWarmPool(ctx context.Context, p spec.KubernetesWarmPool) error {
	if err := checkWarmPool(p); err != nil {
		return err
	}
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{
		"replicas": p.Replicas, "sandboxTemplateRef": map[string]any{"name": p.Template},
	}})
	if err != nil {
		return err
	}
	err = c.patchObject(ctx, SandboxWarmPoolResource, p.Namespace, p.Name, patch)
	return err
}

func checkWarmPool(p spec.KubernetesWarmPool) error {
	if err := ValidateName(KindSandboxWarmPool, p.Name); err != nil {
		return err
	}
	if err := ValidateName(KindSandboxTemplate, p.Template); err != nil {
		return err
	}
	if p.Replicas < 0 || p.Replicas > 1<<31-1 {
		return fmt.Errorf("replicas %d must be between 0 and %d", p.Replicas, 1<<31-1)
	}
	return nil
}

// poolState is a SandboxWarmPool read back: its spec and status, and
// whether its controller has seen its latest spec.
type poolState struct {
	spec.KubernetesWarmPoolStatus
	// Selector selects its Sandboxes ("" before the controller saw it).
	Selector string
	// Observed is true when status.observedGeneration has caught up with
	// metadata.generation: the counts are about the current spec.
	Observed bool
}

func readWarmPoolObject(u *unstructured.Unstructured) (poolState, error) {
	st, err := ReadSandboxWarmPool(u)
	if err != nil {
		return poolState{}, err
	}
	var ferr error
	out := poolState{KubernetesWarmPoolStatus: spec.KubernetesWarmPoolStatus{
		Template: str(u.Object, &ferr, "spec", "sandboxTemplateRef", "name"),
		Replicas: 1, ReadyReplicas: st.ReadyReplicas,
	}}
	if _, found, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "replicas"); found {
		out.Replicas = integer(u.Object, &ferr, "spec", "replicas")
	}
	out.Selector = str(u.Object, &ferr, "status", "selector")
	out.Observed = integer(u.Object, &ferr, "status", "observedGeneration") >= u.GetGeneration()
	if ferr != nil {
		return poolState{}, fmt.Errorf("reading %s %s: %w", KindSandboxWarmPool, u.GetName(), ferr)
	}
	return out, nil
}

// ReadWarmPool reads the SandboxWarmPool ns/name; found is false when
// there is none (or it is being deleted).
func (c *Cluster) ReadWarmPool(ctx context.Context, ns, name string) (spec.KubernetesWarmPoolStatus, bool, error) {
	u, found, err := c.getObject(ctx, SandboxWarmPoolResource, ns, name)
	if err != nil || !found || u.GetDeletionTimestamp() != nil {
		return spec.KubernetesWarmPoolStatus{}, false, err
	}
	st, err := readWarmPoolObject(u)
	return st.KubernetesWarmPoolStatus, err == nil, err
}

// DeleteWarmPool deletes the SandboxWarmPool ns/name in the foreground and
// waits until it is gone, and with it the Sandboxes it owns (and their
// pods); one already gone is not an error.
func (c *Cluster) DeleteWarmPool(ctx context.Context, ns, name string) error {
	if err := c.deleteObject(ctx, SandboxWarmPoolResource, ns, name); err != nil {
		return err
	}
	return c.waitGone(ctx, SandboxWarmPoolResource, ns, name)
}
