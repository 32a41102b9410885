package provider

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/kubetest"
)

// The agent-sandbox resources read back by a dynamic client of their own,
// so that a test checks the cluster, not the provider's readers.
var (
	testTemplates = schema.GroupVersionResource{Group: "extensions.agents.x-k8s.io", Version: "v1beta1", Resource: "sandboxtemplates"}
	testPools     = schema.GroupVersionResource{Group: "extensions.agents.x-k8s.io", Version: "v1beta1", Resource: "sandboxwarmpools"}
	testSandboxes = schema.GroupVersionResource{Group: "agents.x-k8s.io", Version: "v1beta1", Resource: "sandboxes"}
)

// poolEnv is a namespace of the test cluster for templates and pools.
type poolEnv struct {
	*testEnv
	cs  *kubernetes.Clientset
	dyn dynamic.Interface
	ns  string
}

func newPoolEnv(t *testing.T) *poolEnv {
	t.Helper()
	cs, cfg := kubetest.Cluster(t)
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &poolEnv{testEnv: newTestEnv(t), cs: cs, dyn: dyn, ns: kubetest.Namespace(t, cs, "sandbox-pool")}
}

// config is a provider block for the test cluster, the template "t" (with
// tpl inside its block) and the pool "p" of replicas (with pool inside).
func (e *poolEnv) config(tpl string, replicas int, pool string) string {
	return fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
  kubernetes {
    config_path = %q
  }
}

resource "sandbox_kubernetes_template" "t" {
  name              = "busybox"
  namespace         = %q
  image_pull_policy = "Never"
  %s
}

resource "sandbox_kubernetes_warm_pool" "p" {
  name      = "warm"
  namespace = %q
  template  = sandbox_kubernetes_template.t.name
  replicas  = %d
  %s
}
`, e.base, os.Getenv("KUBECONFIG"), e.ns, tpl, e.ns, replicas, pool)
}

func (e *poolEnv) get(gvr schema.GroupVersionResource, name string) (*unstructured.Unstructured, error) {
	return e.dyn.Resource(gvr).Namespace(e.ns).Get(context.Background(), name, metav1.GetOptions{})
}

// templateContainer is the "workspace" container of the pod template of
// the SandboxTemplate name.
func (e *poolEnv) templateContainer(name string) (map[string]any, map[string]any, error) {
	u, err := e.get(testTemplates, name)
	if err != nil {
		return nil, nil, err
	}
	cs, _, _ := unstructured.NestedSlice(u.Object, "spec", "podTemplate", "spec", "containers")
	for _, c := range cs {
		if m, ok := c.(map[string]any); ok && m["name"] == "workspace" {
			return u.Object, m, nil
		}
	}
	return nil, nil, fmt.Errorf("SandboxTemplate %s has no workspace container: %v", name, u.Object["spec"])
}

// checkTemplate: the SandboxTemplate holds image, root and the environment
// variable FOO=foo, with an unmanaged network policy.
func (e *poolEnv) checkTemplate(image, root, foo string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		obj, c, err := e.templateContainer("busybox")
		if err != nil {
			return err
		}
		ann, _, _ := unstructured.NestedString(obj, "spec", "podTemplate", "metadata", "annotations", "sandbox.root")
		npm, _, _ := unstructured.NestedString(obj, "spec", "networkPolicyManagement")
		env, _ := c["env"].([]any)
		if c["image"] != image || ann != root || c["workingDir"] != root || npm != "Unmanaged" ||
			!slices.ContainsFunc(env, func(v any) bool { m, _ := v.(map[string]any); return m["name"] == "FOO" && m["value"] == foo }) {
			return fmt.Errorf("SandboxTemplate: image %v, root annotation %q, workingDir %v, networkPolicyManagement %q, env %v; "+
				"want %s, %s, FOO=%s, Unmanaged", c["image"], ann, c["workingDir"], npm, env, image, root, foo)
		}
		return nil
	}
}

// sandboxes lists the namespace's Sandboxes (all of them the pool's).
func (e *poolEnv) sandboxes() ([]unstructured.Unstructured, error) {
	l, err := e.dyn.Resource(testSandboxes).Namespace(e.ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return l.Items, nil
}

// checkPool: the pool reports n ready replicas, and there are n Sandboxes
// whose pods run image with FOO=foo.
func (e *poolEnv) checkPool(n int64, image, foo string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		u, err := e.get(testPools, "warm")
		if err != nil {
			return err
		}
		ready, _, _ := unstructured.NestedInt64(u.Object, "status", "readyReplicas")
		if ready != n {
			return fmt.Errorf("SandboxWarmPool warm has %d ready replicas, want %d", ready, n)
		}
		if got := s.RootModule().Resources["sandbox_kubernetes_warm_pool.p"].Primary.Attributes["ready_replicas"]; got != fmt.Sprint(n) {
			return fmt.Errorf("state ready_replicas %s, want %d", got, n)
		}
		sbs, err := e.sandboxes()
		if err != nil {
			return err
		}
		if int64(len(sbs)) != n {
			return fmt.Errorf("%d Sandboxes in %s, want %d", len(sbs), e.ns, n)
		}
		for _, sb := range sbs {
			if err := e.checkPod(sb.GetName(), image, foo); err != nil {
				return err
			}
		}
		return nil
	}
}

// checkPod: the pod name runs, its workspace container of image with
// FOO=foo.
func (e *poolEnv) checkPod(name, image, foo string) error {
	p, err := e.cs.CoreV1().Pods(e.ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("the pod of Sandbox %s: %w", name, err)
	}
	if p.Status.Phase != corev1.PodRunning {
		return fmt.Errorf("pod %s is %s", name, p.Status.Phase)
	}
	for _, c := range p.Spec.Containers {
		if c.Name == "workspace" && c.Image == image && slices.Contains(c.Env, corev1.EnvVar{Name: "FOO", Value: foo}) {
			return nil
		}
	}
	return fmt.Errorf("pod %s has no workspace container of %s with FOO=%s: %+v", name, image, foo, p.Spec.Containers)
}

// checkAllGone: no SandboxWarmPool, SandboxTemplate, Sandbox or pod is
// left in the namespace after destroy (pods may take their grace second).
func (e *poolEnv) checkAllGone(*terraform.State) error {
	ctx := context.Background()
	for _, gvr := range []schema.GroupVersionResource{testPools, testTemplates, testSandboxes} {
		l, err := e.dyn.Resource(gvr).Namespace(e.ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		if len(l.Items) > 0 {
			return fmt.Errorf("after destroy: %d %s left in %s", len(l.Items), gvr.Resource, e.ns)
		}
	}
	return wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		pods, err := e.cs.CoreV1().Pods(e.ns).List(ctx, metav1.ListOptions{})
		return err == nil && len(pods.Items) == 0, err
	})
}

const poolTemplate = `
  image       = %q
  root        = %q
  environment = { FOO = %q }
`

// A template and a pool of 2 on the test cluster: the SandboxTemplate holds
// the image, root and environment, the pool's 2 Sandboxes run pods of it;
// 2 → 3 replicas and a new template image and environment are changes in
// place, the latter reaching the Sandboxes made afterwards; both import
// without a difference; destroy removes the pool, its Sandboxes, their
// pods and the template.
func TestAccKubernetesWarmPool_lifecycle(t *testing.T) {
	e := newPoolEnv(t)
	img1, img2 := kubetest.BusyboxImage, kubetest.WorkspaceImage
	start := time.Now()
	var firstSandboxes []string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             e.checkAllGone,
		Steps: []resource.TestStep{
			{
				Config: e.config(fmt.Sprintf(poolTemplate, img1, "/srv/work", "one"), 2, ""),
				Check: resource.ComposeAggregateTestCheckFunc(
					e.checkTemplate(img1, "/srv/work", "one"),
					e.checkPool(2, img1, "one"),
					resource.TestCheckResourceAttr("sandbox_kubernetes_warm_pool.p", "id", e.ns+"/warm"),
					resource.TestCheckResourceAttr("sandbox_kubernetes_template.t", "id", e.ns+"/busybox"),
					func(*terraform.State) error {
						t.Logf("template and pool of 2 ready after %s", time.Since(start).Round(100*time.Millisecond))
						sbs, err := e.sandboxes()
						for _, sb := range sbs {
							firstSandboxes = append(firstSandboxes, sb.GetName())
						}
						return err
					},
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				PreConfig: func() { start = time.Now() },
				Config:    e.config(fmt.Sprintf(poolTemplate, img1, "/srv/work", "one"), 3, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("sandbox_kubernetes_warm_pool.p", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("sandbox_kubernetes_template.t", plancheck.ResourceActionNoop),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					e.checkPool(3, img1, "one"),
					func(*terraform.State) error {
						t.Logf("2 → 3 replicas ready after %s", time.Since(start).Round(100*time.Millisecond))
						sbs, err := e.sandboxes()
						for _, name := range firstSandboxes {
							if !slices.ContainsFunc(sbs, func(u unstructured.Unstructured) bool { return u.GetName() == name }) {
								return fmt.Errorf("Sandbox %s of the pool of 2 was replaced on scaling to 3", name)
							}
						}
						return err
					},
				),
			},
			{
				Config: e.config(fmt.Sprintf(poolTemplate, img2, "/srv/work", "two"), 3, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("sandbox_kubernetes_template.t", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("sandbox_kubernetes_warm_pool.p", plancheck.ResourceActionNoop),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					e.checkTemplate(img2, "/srv/work", "two"),
					e.checkReplacedFromNewTemplate(t, img1, img2),
				),
			},
			{ResourceName: "sandbox_kubernetes_template.t", ImportState: true, ImportStateId: e.ns + "/busybox", ImportStateVerify: true},
			{ResourceName: "sandbox_kubernetes_warm_pool.p", ImportState: true, ImportStateId: e.ns + "/warm", ImportStateVerify: true},
		},
	})
}

// checkReplacedFromNewTemplate: after the template changed, the pool's
// Sandboxes keep their pods of the old image (its default update strategy,
// OnReplenish); a Sandbox deleted is replaced by one whose pod runs the new
// image and environment.
func (e *poolEnv) checkReplacedFromNewTemplate(t *testing.T, oldImage, newImage string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx := context.Background()
		sbs, err := e.sandboxes()
		if err != nil {
			return err
		}
		if len(sbs) != 3 {
			return fmt.Errorf("%d Sandboxes after the template changed, want the 3 of before", len(sbs))
		}
		for _, sb := range sbs {
			if err := e.checkPod(sb.GetName(), oldImage, "one"); err != nil {
				return fmt.Errorf("after the template changed: %w", err)
			}
		}
		gone := sbs[0].GetName()
		if err := e.dyn.Resource(testSandboxes).Namespace(e.ns).Delete(ctx, gone, metav1.DeleteOptions{}); err != nil {
			return err
		}
		start := time.Now()
		var fresh string
		err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
			sbs, err := e.sandboxes()
			if err != nil {
				return false, err
			}
			for _, sb := range sbs {
				if sb.GetName() != gone && e.checkPod(sb.GetName(), newImage, "two") == nil {
					fresh = sb.GetName()
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			return fmt.Errorf("no Sandbox of the new template replaced the deleted %s: %w", gone, err)
		}
		t.Logf("Sandbox %s deleted: %s of the new template running after %s", gone, fresh, time.Since(start).Round(100*time.Millisecond))
		return e.waitReady(3)
	}
}

// waitReady waits until the pool counts n ready replicas.
func (e *poolEnv) waitReady(n int64) error {
	return wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		u, err := e.get(testPools, "warm")
		if err != nil {
			return false, err
		}
		ready, _, _ := unstructured.NestedInt64(u.Object, "status", "readyReplicas")
		return ready == n, nil
	})
}

// deleteAndWait deletes name of gvr out of band, in the foreground, and
// waits until it is gone.
func (e *poolEnv) deleteAndWait(t *testing.T, gvr schema.GroupVersionResource, name string) {
	t.Helper()
	ctx := context.Background()
	fg := metav1.DeletePropagationForeground
	if err := e.dyn.Resource(gvr).Namespace(e.ns).Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &fg}); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		_, err := e.get(gvr, name)
		return apierrors.IsNotFound(err), nil
	}); err != nil {
		t.Fatalf("%s %s still there: %v", gvr.Resource, name, err)
	}
}
