package kubetest_test

import (
	"context"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/kubetest"
)

// TestKubernetesAgentSandboxController proves the test cluster runs the
// agent-sandbox controller built from source with its CRDs: the four kinds
// are served, a Sandbox gets its pod from the controller (named after it,
// running the imported image), and deleting the Sandbox removes the pod.
func TestKubernetesAgentSandboxController(t *testing.T) {
	cs, cfg := kubetest.Cluster(t)
	ctx := t.Context()
	var kinds []string
	for _, gv := range []string{"agents.x-k8s.io/v1beta1", "extensions.agents.x-k8s.io/v1beta1"} {
		res, err := cs.Discovery().ServerResourcesForGroupVersion(gv)
		if err != nil {
			t.Fatalf("%s is not served (are the agent-sandbox CRDs installed?): %v", gv, err)
		}
		for _, r := range res.APIResources {
			kinds = append(kinds, r.Kind)
		}
	}
	for _, k := range []string{"Sandbox", "SandboxClaim", "SandboxTemplate", "SandboxWarmPool"} {
		if !slices.Contains(kinds, k) {
			t.Fatalf("kind %s is not served; served: %v", k, kinds)
		}
	}

	ns := kubetest.Namespace(t, cs, "sandbox-asb")
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sandboxes := dyn.Resource(schema.GroupVersionResource{Group: "agents.x-k8s.io", Version: "v1beta1", Resource: "sandboxes"}).Namespace(ns)
	sb := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "agents.x-k8s.io/v1beta1", "kind": "Sandbox",
		"metadata": map[string]any{"name": "box"},
		"spec": map[string]any{"podTemplate": map[string]any{"spec": map[string]any{
			"terminationGracePeriodSeconds": int64(1),
			"containers": []any{map[string]any{
				"name": "main", "image": kubetest.BusyboxImage, "imagePullPolicy": "Never",
				"command": []any{"tail", "-f", "/dev/null"},
			}},
		}}},
	}}
	if _, err := sandboxes.Create(ctx, sb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, "box", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil && p.Status.Phase == "Running", err
	})
	if err != nil {
		t.Fatalf("the controller did not run the Sandbox's pod: %v", err)
	}
	got, err := sandboxes.Get(ctx, "box", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
	t.Logf("Sandbox box: %v", conds)

	if err := sandboxes.Delete(ctx, "box", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().Pods(ns).Get(ctx, "box", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("the Sandbox's pod outlived it: %v", err)
	}
}
