package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// AgentSandboxInstall is where agent-sandbox's installation is described,
// for errors about a cluster without it.
const AgentSandboxInstall = "https://agent-sandbox.sigs.k8s.io/docs/getting_started/"

// ErrNoAgentSandbox is wrapped when the cluster does not serve the
// agent-sandbox kinds (its CRDs are not installed).
var ErrNoAgentSandbox = errors.New("the cluster does not serve the agent-sandbox API")

// kinds names the kind of each agent-sandbox resource, for messages.
var kinds = map[schema.GroupVersionResource]string{
	SandboxResource: KindSandbox, SandboxClaimResource: KindSandboxClaim,
	SandboxTemplateResource: KindSandboxTemplate, SandboxWarmPoolResource: KindSandboxWarmPool,
}

// dynamic returns the cluster's dynamic client, made on first use.
func (c *Cluster) dynamic() (dynamic.Interface, error) {
	_, rc, err := c.client()
	if err != nil {
		return nil, err
	}
	c.dynOnce.Do(func() { c.dyn, c.dynErr = dynamic.NewForConfig(rc) })
	return c.dyn, c.dynErr
}

// agentErr explains an error of a request about an agent-sandbox object:
// a resource the API server does not know (its CRD is missing) wraps
// ErrNoAgentSandbox and says how to install it, where a bare 404 would
// read as "the object is not there"; missing permissions name the verb.
func agentErr(err error, gvr schema.GroupVersionResource, verb, ns, name string) error {
	if err == nil {
		return nil
	}
	kind := kinds[gvr]
	what := fmt.Sprintf("%s %s/%s", kind, ns, name)
	if name == "" {
		what = fmt.Sprintf("%s in namespace %s", kind, ns)
	}
	switch {
	case notServed(err):
		return fmt.Errorf("%s %s: %w (no resource %s.%s/%s): install agent-sandbox (v1.0.1 or later, with its extensions "+
			"for SandboxTemplate, SandboxWarmPool and SandboxClaim) and run its controller: %s", verb, what, ErrNoAgentSandbox,
			gvr.Resource, gvr.Group, gvr.Version, AgentSandboxInstall)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("%s %s: %w (the provider needs %s on %s.%s in namespace %s)", verb, what, err, verb, gvr.Resource, gvr.Group, ns)
	}
	return fmt.Errorf("%s %s: %w", verb, what, err)
}

// notServed reports whether err says the resource itself is unknown to the
// API server (not that one object of it is missing): a 404 whose details
// name no object.
func notServed(err error) bool {
	var st apierrors.APIStatus
	if !apierrors.IsNotFound(err) || !errors.As(err, &st) {
		return false
	}
	d := st.Status().Details
	return d == nil || d.Name == ""
}

// getObject reads ns/name of gvr; found is false when there is none.
func (c *Cluster) getObject(ctx context.Context, gvr schema.GroupVersionResource, ns, name string) (*unstructured.Unstructured, bool, error) {
	dc, err := c.dynamic()
	if err != nil {
		return nil, false, err
	}
	var u *unstructured.Unstructured
	err = call(ctx, func() error {
		var gerr error
		u, gerr = dc.Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		return gerr
	})
	if apierrors.IsNotFound(err) && !notServed(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, agentErr(err, gvr, "get", ns, name)
	}
	return u, true, nil
}

// createObject creates u (of gvr).
func (c *Cluster) createObject(ctx context.Context, gvr schema.GroupVersionResource, u *unstructured.Unstructured) error {
	dc, err := c.dynamic()
	if err != nil {
		return err
	}
	err = call(ctx, func() error {
		_, cerr := dc.Resource(gvr).Namespace(u.GetNamespace()).Create(ctx, u, metav1.CreateOptions{})
		return cerr
	})
	return agentErr(err, gvr, "create", u.GetNamespace(), u.GetName())
}

// deleteObject deletes ns/name of gvr with foreground propagation (what
// it owns goes first); one already gone is not an error.
func (c *Cluster) deleteObject(ctx context.Context, gvr schema.GroupVersionResource, ns, name string) error {
	dc, err := c.dynamic()
	if err != nil {
		return err
	}
	fg := metav1.DeletePropagationForeground
	err = call(ctx, func() error {
		return dc.Resource(gvr).Namespace(ns).Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &fg})
	})
	if apierrors.IsNotFound(err) && !notServed(err) {
		return nil
	}
	return agentErr(err, gvr, "delete", ns, name)
}

// patchObject applies a JSON merge patch to ns/name of gvr.
func (c *Cluster) patchObject(ctx context.Context, gvr schema.GroupVersionResource, ns, name string, patch []byte) error {
	dc, err := c.dynamic()
	if err != nil {
		return err
	}
	err = call(ctx, func() error {
		_, perr := dc.Resource(gvr).Namespace(ns).Patch(ctx, name, "application/merge-patch+json", patch, metav1.PatchOptions{})
		return perr
	})
	return agentErr(err, gvr, "patch", ns, name)
}

// CheckAgentSandbox is the plan's read-only look at the cluster for a new
// agent-sandbox workspace in ns (claim: from a warm pool): an error when
// the cluster answers that it does not serve the agent-sandbox kinds it
// needs (wrapping ErrNoAgentSandbox) or that ns does not exist. A cluster
// that cannot be reached, or does not let the provider read these, is not
// an error: the apply says what fails.
func (c *Cluster) CheckAgentSandbox(ctx context.Context, ns string, claim bool) error {
	cs, _, err := c.client()
	if err != nil {
		return err
	}
	gvr := SandboxResource
	if claim {
		gvr = SandboxClaimResource
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var list metav1.APIResourceList
	err = cs.Discovery().RESTClient().Get().AbsPath("/apis", gvr.Group, gvr.Version).Do(ctx).Into(&list)
	switch {
	case apierrors.IsNotFound(err):
		return agentErr(apierrors.NewNotFound(gvr.GroupResource(), ""), gvr, "create", ns, "")
	case err == nil:
		served := false
		for _, r := range list.APIResources {
			served = served || r.Name == gvr.Resource
		}
		if !served {
			return agentErr(apierrors.NewNotFound(gvr.GroupResource(), ""), gvr, "create", ns, "")
		}
	}
	_, err = cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("namespace %s does not exist on the cluster: create it first (a kubernetes_namespace resource, or kubectl create namespace %s)", ns, ns)
	}
	return nil
}
