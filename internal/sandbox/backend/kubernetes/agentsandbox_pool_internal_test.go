package kubernetes

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A 404 that names no object is the API server saying it does not know
// the resource (the agent-sandbox CRDs are not installed): agentErr wraps
// ErrNoAgentSandbox and says where to install it. A 404 naming the object
// is only that object missing.
func TestAgentErrNotServed(t *testing.T) {
	gr := schema.GroupResource{Group: SandboxWarmPoolResource.Group, Resource: SandboxWarmPoolResource.Resource}
	notServedErr := apierrors.NewNotFound(gr, "")
	notServedErr.ErrStatus.Details = nil
	err := agentErr(notServedErr, SandboxWarmPoolResource, "create", "agents", "python")
	if !errors.Is(err, ErrNoAgentSandbox) {
		t.Fatalf("a 404 without an object name: %v does not wrap ErrNoAgentSandbox", err)
	}
	for _, want := range []string{"create SandboxWarmPool agents/python", "sandboxwarmpools.extensions.agents.x-k8s.io/v1beta1",
		AgentSandboxInstall} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	// The same with empty details, as the API server sends it.
	empty := apierrors.NewNotFound(gr, "")
	if err := agentErr(empty, SandboxWarmPoolResource, "get", "agents", "python"); !errors.Is(err, ErrNoAgentSandbox) {
		t.Errorf("a 404 with empty details: %v", err)
	}
	objectGone := apierrors.NewNotFound(gr, "python")
	if err := agentErr(objectGone, SandboxWarmPoolResource, "get", "agents", "python"); errors.Is(err, ErrNoAgentSandbox) {
		t.Errorf("a 404 naming the object reads as a missing CRD: %v", err)
	}
}

// fakeAPIServer answers every request with a 404: a Status naming no
// object (as the API server answers for a resource it does not serve), or
// naming the object asked for.
func fakeAPIServer(t *testing.T, nameObject bool) *Cluster {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		details := "{}"
		if nameObject {
			parts := strings.Split(r.URL.Path, "/")
			details = fmt.Sprintf(`{"name":%q,"group":"extensions.agents.x-k8s.io","kind":"sandboxtemplates"}`, parts[len(parts)-1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",`+
			`"message":"the server could not find the requested resource","reason":"NotFound","details":%s,"code":404}`, details)
	}))
	t.Cleanup(srv.Close)
	return NewCluster(spec.KubernetesConfig{Host: srv.URL, Token: "test"})
}

// Against an API server without the agent-sandbox CRDs, every operation
// on templates and pools fails with ErrNoAgentSandbox and the install
// link, never a bare 404 or "not found" read as "deleted".
func TestAgentSandboxPoolsWithoutCRDs(t *testing.T) {
	c := fakeAPIServer(t, false)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	pool := spec.KubernetesWarmPool{Namespace: "agents", Name: "python", Template: "python", Replicas: 2}
	ops := map[string]func() error{
		"create pool": func() error { return c.CreateWarmPool(ctx, pool) },
		"update pool": func() error { return c.UpdateWarmPool(ctx, pool) },
		"read pool":   func() error { _, _, err := c.ReadWarmPool(ctx, "agents", "python"); return err },
		"delete pool": func() error { return c.DeleteWarmPool(ctx, "agents", "python") },
		"read template": func() error {
			_, _, err := c.ReadTemplate(ctx, "agents", "python")
			return err
		},
		"delete template": func() error { return c.DeleteTemplate(ctx, "agents", "python") },
	}
	for name, op := range ops {
		err := op()
		if !errors.Is(err, ErrNoAgentSandbox) || !strings.Contains(err.Error(), AgentSandboxInstall) {
			t.Errorf("%s: %v, want ErrNoAgentSandbox with the install link", name, err)
		}
	}
	// A 404 naming the object is that object gone: not found, no error.
	c = fakeAPIServer(t, true)
	if _, found, err := c.ReadTemplate(ctx, "agents", "python"); found || err != nil {
		t.Errorf("a missing template: found %v, %v", found, err)
	}
	if err := c.DeleteWarmPool(ctx, "agents", "python"); err != nil {
		t.Errorf("deleting a pool already gone: %v", err)
	}
}

// A SandboxTemplate built from a template reads back as that template:
// the pod's settings, the root, the environment, the claim of the root
// volume and the network policy management; the provider's own labels are
// left out.
func TestSandboxTemplateReadsBack(t *testing.T) {
	cases := map[string]spec.KubernetesTemplate{
		"minimal": {Name: "python", Pod: spec.Kubernetes{Namespace: "agents", Image: "python:3.13", Root: "/workspace"}},
		"everything": {Name: "python.big", ManagedNetworkPolicy: true,
			RootVolume: &spec.KubernetesRootVolume{Size: "10Gi", StorageClassName: "fast"},
			Pod: spec.Kubernetes{Namespace: "agents", Image: "python:3.13", ImagePullPolicy: "Never",
				Labels: map[string]string{"team": "evals"}, ServiceAccount: "runner", NodeSelector: map[string]string{"pool": "gvisor"},
				RuntimeClassName: "gvisor", Requests: map[string]string{"cpu": "250m", "memory": "256Mi"},
				Limits: map[string]string{"memory": "1Gi"}, Privileged: true, Root: "/work",
				Environment: map[string]string{"A": "1", "PATH": "/bin"}}},
	}
	for name, want := range cases {
		u, err := templateObject(want, testDigest)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		usable(t, u)
		if u.GetLabels()[LabelManagedBy] != ManagedBy {
			t.Errorf("%s: labels %v", name, u.GetLabels())
		}
		got, err := readTemplate(u)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read back\n%+v\nwant\n%+v", name, got, want)
		}
	}
	// One the provider did not make: no networkPolicyManagement means the
	// controller's default, Managed.
	u := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "x", "namespace": "agents"},
		"spec": map[string]any{"podTemplate": map[string]any{"spec": map[string]any{}}}}}
	if got, err := readTemplate(u); err != nil || !got.ManagedNetworkPolicy {
		t.Errorf("a template without networkPolicyManagement: %+v, %v", got, err)
	}
}

// A template of the wrong shape is an error naming the field, never a
// panic.
func TestSandboxTemplateReadRefusesWrongShapes(t *testing.T) {
	for name, specField := range map[string]map[string]any{
		"pod template a string":    {"podTemplate": "x"},
		"containers a number":      {"podTemplate": map[string]any{"spec": map[string]any{"containers": int64(3)}}},
		"claims an object":         {"volumeClaimTemplates": []any{"x"}},
		"size a number":            {"volumeClaimTemplates": []any{map[string]any{"metadata": map[string]any{"name": "workspace"}, "spec": map[string]any{"resources": map[string]any{"requests": map[string]any{"storage": int64(5)}}}}}},
		"policy management a list": {"networkPolicyManagement": []any{}},
	} {
		u := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "x"}, "spec": specField}}
		if _, err := readTemplate(u); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// A pool's status counts only once the controller has seen its current
// spec; replicas defaults to the CRD's 1.
func TestReadWarmPoolObject(t *testing.T) {
	u := SandboxWarmPool("agents", "python", "tpl", 3, nil)
	u.SetGeneration(2)
	u.Object["status"] = map[string]any{"readyReplicas": int64(3), "observedGeneration": int64(1), "selector": "a=b"}
	st, err := readWarmPoolObject(u)
	if err != nil || st.Observed || st.ReadyReplicas != 3 || st.Replicas != 3 || st.Template != "tpl" || st.Selector != "a=b" {
		t.Errorf("generation 2 observed 1: %+v, %v", st, err)
	}
	u.Object["status"].(map[string]any)["observedGeneration"] = float64(2)
	delete(u.Object["spec"].(map[string]any), "replicas")
	if st, err = readWarmPoolObject(u); err != nil || !st.Observed || st.Replicas != 1 {
		t.Errorf("observed, no replicas: %+v, %v", st, err)
	}
}
