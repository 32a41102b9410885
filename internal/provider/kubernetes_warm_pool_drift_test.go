package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/kubetest"
)

// Changes made outside Terraform show in the plan and the apply repairs
// them: a pool scaled and a template's image changed are updated back in
// place; a pool deleted, then a template deleted, are created again.
func TestAccKubernetesWarmPool_outOfBand(t *testing.T) {
	e := newPoolEnv(t)
	tpl := fmt.Sprintf(poolTemplate, kubetest.BusyboxImage, "/workspace", "one") + `
  resources             = { requests = { cpu = "0.05", memory = "16Mi" } }
  volume_claim_template = { size = "1Gi", storage_class_name = "none" }
  labels                = { team = "evals" }
`
	// No provisioner serves the class "none", so a pool of this template
	// would wait forever: the pool here has no replicas.
	cfg := e.config(tpl, 0, "")
	merge := func(name string, gvrIsPool bool, body string) func() {
		return func() {
			gvr := testTemplates
			if gvrIsPool {
				gvr = testPools
			}
			if _, err := e.dyn.Resource(gvr).Namespace(e.ns).Patch(context.Background(), name, k8stypes.MergePatchType, []byte(body),
				metav1.PatchOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	update := func(addr string) resource.ConfigPlanChecks {
		return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}}
	}
	create := func(addr, other string) resource.ConfigPlanChecks {
		return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
			plancheck.ExpectResourceAction(other, plancheck.ResourceActionNoop),
		}}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             e.checkAllGone,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: resource.ComposeAggregateTestCheckFunc(
					e.checkTemplate(kubetest.BusyboxImage, "/workspace", "one"),
					e.checkClaimTemplate("1Gi", "none"),
					resource.TestCheckResourceAttr("sandbox_kubernetes_template.t", "resources.requests.cpu", "0.05"),
					resource.TestCheckResourceAttr("sandbox_kubernetes_warm_pool.p", "ready_replicas", "0"),
				),
			},
			{
				PreConfig:        merge("warm", true, `{"spec":{"replicas":1,"sandboxTemplateRef":{"name":"other"}}}`),
				Config:           cfg,
				ConfigPlanChecks: update("sandbox_kubernetes_warm_pool.p"),
				Check:            e.checkPoolSpec("busybox", 0),
			},
			{
				PreConfig: merge("busybox", false, `{"spec":{"podTemplate":{"metadata":{"labels":{"team":"other"}}},`+
					`"networkPolicyManagement":"Managed"}}`),
				Config:           cfg,
				ConfigPlanChecks: update("sandbox_kubernetes_template.t"),
				Check: resource.ComposeAggregateTestCheckFunc(
					e.checkTemplate(kubetest.BusyboxImage, "/workspace", "one"),
					e.checkPodLabel("team", "evals"),
				),
			},
			{
				PreConfig:        func() { e.deleteAndWait(t, testPools, "warm") },
				Config:           cfg,
				ConfigPlanChecks: create("sandbox_kubernetes_warm_pool.p", "sandbox_kubernetes_template.t"),
				Check:            e.checkPoolSpec("busybox", 0),
			},
			{
				PreConfig:        func() { e.deleteAndWait(t, testTemplates, "busybox") },
				Config:           cfg,
				ConfigPlanChecks: create("sandbox_kubernetes_template.t", "sandbox_kubernetes_warm_pool.p"),
				Check:            e.checkTemplate(kubetest.BusyboxImage, "/workspace", "one"),
			},
		},
	})
}

// checkPoolSpec: the SandboxWarmPool names template and keeps replicas.
func (e *poolEnv) checkPoolSpec(template string, replicas int64) resource.TestCheckFunc {
	return func(*terraform.State) error {
		u, err := e.get(testPools, "warm")
		if err != nil {
			return err
		}
		got, _, _ := unstructured.NestedString(u.Object, "spec", "sandboxTemplateRef", "name")
		n, _, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
		if got != template || n != replicas {
			return fmt.Errorf("SandboxWarmPool: template %q, replicas %d; want %q, %d", got, n, template, replicas)
		}
		return nil
	}
}

// checkClaimTemplate: the SandboxTemplate's claim template "workspace"
// requests size of class.
func (e *poolEnv) checkClaimTemplate(size, class string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		u, err := e.get(testTemplates, "busybox")
		if err != nil {
			return err
		}
		vcts, _, _ := unstructured.NestedSlice(u.Object, "spec", "volumeClaimTemplates")
		if len(vcts) != 1 {
			return fmt.Errorf("volumeClaimTemplates %v", vcts)
		}
		m, _ := vcts[0].(map[string]any)
		name, _, _ := unstructured.NestedString(m, "metadata", "name")
		got, _, _ := unstructured.NestedString(m, "spec", "resources", "requests", "storage")
		sc, _, _ := unstructured.NestedString(m, "spec", "storageClassName")
		if name != "workspace" || got != size || sc != class {
			return fmt.Errorf("volumeClaimTemplates[0] %v; want workspace of %s, class %s", m, size, class)
		}
		return nil
	}
}

// checkPodLabel: the SandboxTemplate's pods get the label k=v.
func (e *poolEnv) checkPodLabel(k, v string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		u, err := e.get(testTemplates, "busybox")
		if err != nil {
			return err
		}
		got, _, _ := unstructured.NestedString(u.Object, "spec", "podTemplate", "metadata", "labels", k)
		if got != v {
			return fmt.Errorf("pod template label %s=%q, want %q", k, got, v)
		}
		return nil
	}
}

// A pool whose pods cannot be scheduled fails its creation at the timeout
// saying how many Sandboxes are ready and why one is not; one whose image
// may not be pulled fails at once with the kubelet's reason. Both are left
// tainted, and destroy removes them.
func TestAccKubernetesWarmPool_notReady(t *testing.T) {
	e := newPoolEnv(t)
	unschedulable := fmt.Sprintf(poolTemplate, kubetest.BusyboxImage, "/workspace", "one") +
		`node_selector = { "sandbox.test/no-such-node" = "true" }`
	noImage := fmt.Sprintf(poolTemplate, "localhost/sandbox-test/no-such-image:1", "/workspace", "one")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             e.checkAllGone,
		Steps: []resource.TestStep{
			{
				Config: e.config(unschedulable, 1, `timeouts { create = "20s" }`),
				ExpectError: errReAll(`Timed out after 20s: raise timeouts.create|SandboxWarmPool ` + e.ns +
					`/warm has 0 of 1 Sandboxes ready|is not ready|Unschedulable|didn't match Pod's node affinity/selector|marked tainted: the next apply replaces it`),
			},
			{
				Config:      e.config(noImage, 1, ""),
				ExpectError: errReAll(`0 of 1 Sandboxes ready, and one cannot start|ErrImageNeverPull`),
			},
		},
	})
}
