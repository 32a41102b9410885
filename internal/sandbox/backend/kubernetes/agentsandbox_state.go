package kubernetes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// What the provider reads, removes and suspends of an agent-sandbox
// workspace (see agentsandbox_workspace.go).

// LookupAgent reads the workspace object ref, its Sandbox (only when its
// pod does not run) and its pod; found is false when the object itself is
// gone. A lookup under maxAge old may be reused (see backend.SharedFresh).
// It only reads.
func (c *Cluster) LookupAgent(ctx context.Context, ref AgentRef, maxAge time.Duration) (AgentWorkspace, bool, error) {
	var out AgentWorkspace
	out.SandboxName = ref.Name
	if ref.Claim {
		key := ref.Namespace + "/" + ref.Name
		if v, ok := c.bound.Load(key); ok && maxAge > 0 {
			out.SandboxName, _ = v.(string)
		} else {
			u, found, err := c.getObject(ctx, SandboxClaimResource, ref.Namespace, ref.Name)
			if err != nil || !found {
				return out, found, err
			}
			if out.Claim, err = ReadSandboxClaim(u); err != nil {
				return out, true, err
			}
			out.SandboxName = out.Claim.SandboxName
			if out.SandboxName == "" {
				return out, true, nil
			}
			c.bound.Store(key, out.SandboxName)
		}
	}
	p, found, err := c.lookup(ctx, ref.Namespace, out.SandboxName, maxAge)
	if err != nil {
		return out, true, err
	}
	out.Pod, out.PodFound = p, found
	if found && p.Running && !p.Gone {
		return out, true, nil
	}
	u, sfound, err := c.getObject(ctx, SandboxResource, ref.Namespace, out.SandboxName)
	if err != nil {
		return out, true, err
	}
	if !sfound {
		if ref.Claim { // its Sandbox ended (an expired claim keeps itself): what the claim says
			c.bound.Delete(ref.Namespace + "/" + ref.Name)
			cu, cfound, err := c.getObject(ctx, SandboxClaimResource, ref.Namespace, ref.Name)
			if err != nil || !cfound {
				return out, cfound, err
			}
			out.Claim, err = ReadSandboxClaim(cu)
			return out, true, err
		}
		return out, false, nil
	}
	out.Sandbox, err = ReadSandbox(u)
	out.SandboxRead = err == nil
	return out, true, err
}

// RemoveAgent deletes the workspace object ref with foreground
// propagation (its Sandbox, pod, Service and volume claims go first) and
// waits until it is gone; one already gone is not an error.
func (c *Cluster) RemoveAgent(ctx context.Context, ref AgentRef) error {
	key := ref.Namespace + "/" + ref.Name
	if v, ok := c.bound.Load(key); ok {
		if name, _ := v.(string); name != "" {
			c.helpers.Forget(ref.Namespace + "/" + name)
		}
	}
	c.helpers.Forget(key)
	c.bound.Delete(key)
	defer c.reads.Changed()
	if err := c.deleteObject(ctx, ref.gvr(), ref.Namespace, ref.Name); err != nil {
		return err
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		_, found, err := c.getObject(ctx, ref.gvr(), ref.Namespace, ref.Name)
		if err != nil {
			return err
		}
		if !found {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s was deleted but is still there after 2 minutes (a finalizer, or no garbage collector?)", ref)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// SetSuspended suspends (operatingMode Suspended: the controller deletes
// the pod; the Sandbox, its Service and volume claims stay) or resumes
// the Sandbox sandbox of ref, and waits for it: no pod, or a running pod
// that is a workspace again (helper, root, the accounts its pod template
// records).
func (c *Cluster) SetSuspended(ctx context.Context, ref AgentRef, sandbox string, suspended bool, timeout time.Duration) error {
	mode := OperatingModeRunning
	if suspended {
		mode = OperatingModeSuspended
	}
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"operatingMode": mode}})
	if err != nil {
		return err
	}
	c.helpers.Forget(ref.Namespace + "/" + sandbox)
	defer c.reads.Changed()
	if err := c.patchObject(ctx, SandboxResource, ref.Namespace, sandbox, patch); err != nil {
		return err
	}
	if !suspended {
		p, err := c.waitAgentPod(ctx, ref, sandbox, timeout)
		if err != nil {
			return err
		}
		s := describePod(p)
		_, err = c.prepareAgent(ctx, ref, sandbox, s)
		return err
	}
	cs, _, err := c.client()
	if err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	for {
		_, err := cs.CoreV1().Pods(ref.Namespace).Get(ctx, sandbox, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("reading pod %s/%s: %w", ref.Namespace, sandbox, err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the pod of %s is still there %s after it was suspended", ref, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// AgentSpec is what an agent-sandbox workspace was created with, read back
// from its object: the pool of a claim, or a Sandbox's pod (from its pod
// template, with the workspace's root, users and groups) and its root
// volume.
type AgentSpec struct {
	Pod      Spec
	WarmPool string
	// VolumeSize and StorageClassName are a Sandbox's root volume claim.
	VolumeSize, StorageClassName string
}

// DescribeAgent reads back what the object ref was created with. It only
// reads.
func (c *Cluster) DescribeAgent(ctx context.Context, ref AgentRef) (AgentSpec, error) {
	u, found, err := c.getObject(ctx, ref.gvr(), ref.Namespace, ref.Name)
	if err != nil {
		return AgentSpec{}, err
	}
	if !found {
		return AgentSpec{}, fmt.Errorf("no %s", ref)
	}
	var out AgentSpec
	if ref.Claim {
		pool, _, err := unstructured.NestedString(u.Object, "spec", "warmPoolRef", "name")
		if err != nil {
			return AgentSpec{}, fmt.Errorf("reading %s: %w", ref, err)
		}
		out.WarmPool = pool
		out.Pod.Namespace = ref.Namespace
		return out, nil
	}
	m, _, err := unstructured.NestedMap(u.Object, "spec", "podTemplate")
	if err != nil {
		return AgentSpec{}, fmt.Errorf("reading %s: %w", ref, err)
	}
	var t corev1.PodTemplateSpec
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &t); err != nil {
		return AgentSpec{}, fmt.Errorf("reading the pod template of %s: %w", ref, err)
	}
	out.Pod = describePod(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Labels: t.Labels, Annotations: t.Annotations}, Spec: t.Spec})
	vcts, _, _ := unstructured.NestedSlice(u.Object, "spec", "volumeClaimTemplates")
	for _, v := range vcts {
		vm, _ := v.(map[string]any)
		if name, _, _ := unstructured.NestedString(vm, "metadata", "name"); name != rootVolumeName {
			continue
		}
		out.VolumeSize, _, _ = unstructured.NestedString(vm, "spec", "resources", "requests", string(corev1.ResourceStorage))
		out.StorageClassName, _, _ = unstructured.NestedString(vm, "spec", "storageClassName")
	}
	return out, nil
}
