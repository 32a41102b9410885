package provider

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	k8sresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/kubernetes"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/kubetest"
)

// agentEnv is a kubeEnv with a dynamic client for the agent-sandbox kinds.
type agentEnv struct {
	*kubeEnv
	dc dynamic.Interface
}

func newAgentEnv(t *testing.T) *agentEnv {
	t.Helper()
	e := newKubeEnv(t)
	dc, err := dynamic.NewForConfig(e.cfg)
	must(t, err)
	return &agentEnv{kubeEnv: e, dc: dc}
}

// config is a provider block for the test cluster and an agent_sandbox
// workspace with block in its block, wsExtra beside it, and body.
func (e *agentEnv) config(block, wsExtra, body string) string {
	return fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
  kubernetes {
    config_path = %q
  }
}

resource "sandbox_workspace" "ws" {
  agent_sandbox {
    namespace = %q
    %s
  }
  %s
}
%s`, e.base, os.Getenv("KUBECONFIG"), e.ns, block, wsExtra, body)
}

// inline is the block of a Sandbox with its own pod.
func inlineSandbox(extra string) string {
	return fmt.Sprintf("image = %q\n    image_pull_policy = \"Never\"\n    %s", kubetest.WorkspaceImage, extra)
}

const agentFile = `
resource "sandbox_file" "f" {
  workspace_id = sandbox_workspace.ws.id
  path         = "notes/kept.txt"
  content      = "kept across a suspend\n"
}
`

func sandboxNameOf(s *terraform.State) string {
	return s.RootModule().Resources["sandbox_workspace.ws"].Primary.Attributes["agent_sandbox.sandbox_name"]
}

func (e *agentEnv) sandbox(name string) (*unstructured.Unstructured, error) {
	return e.dc.Resource(kubernetes.SandboxResource).Namespace(e.ns).Get(context.Background(), name, metav1.GetOptions{})
}

// checkSandboxPod checks the Sandbox named in state and its pod: the pod
// has no helper init container, got the helper from one ephemeral
// installer that exited 0, and mounts it read-only (root in the workspace
// container cannot write it); the file reads back.
func (e *agentEnv) checkSandboxPod(s *terraform.State) error {
	name := sandboxNameOf(s)
	id := s.RootModule().Resources["sandbox_workspace.ws"].Primary.ID
	u, err := e.sandbox(name)
	if err != nil {
		return fmt.Errorf("Sandbox %s: %w", name, err)
	}
	if mode, _, _ := unstructured.NestedString(u.Object, "spec", "operatingMode"); mode != kubernetes.OperatingModeRunning {
		return fmt.Errorf("Sandbox %s operatingMode %q", name, mode)
	}
	if !strings.HasPrefix(id, "agent_sandbox:sandbox:") || "sandbox-"+strings.Split(id, ":")[2] != name {
		return fmt.Errorf("id %q does not name the Sandbox %s", id, name)
	}
	p, err := e.cs.CoreV1().Pods(e.ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	for _, c := range p.Spec.InitContainers {
		if c.Name == "sandbox-fs-helper" {
			return fmt.Errorf("pod %s has a helper init container", name)
		}
	}
	installed := 0
	for _, st := range p.Status.EphemeralContainerStatuses {
		if strings.HasPrefix(st.Name, "sandbox-fs-helper-") && st.State.Terminated != nil && st.State.Terminated.ExitCode == 0 {
			installed++
		}
	}
	if installed != 1 || len(p.Spec.EphemeralContainers) != 1 {
		return fmt.Errorf("pod %s: %d ephemeral containers, %d installers done; want one", name, len(p.Spec.EphemeralContainers), installed)
	}
	out, err := e.shIn(name, "cat /workspace/notes/kept.txt; touch /.sandbox-fs-helper/x 2>/dev/null && echo writable || echo read-only")
	if err != nil {
		return err
	}
	if out != "kept across a suspend\nread-only" {
		return fmt.Errorf("in pod %s: %q", name, out)
	}
	return nil
}

// checkNoSandboxes: destroy left no Sandbox, pod or claim in the namespace.
func (e *agentEnv) checkNoSandboxes(*terraform.State) error {
	ctx := context.Background()
	for _, r := range []struct {
		what string
		list func() (int, error)
	}{
		{"Sandboxes", func() (int, error) {
			l, err := e.dc.Resource(kubernetes.SandboxResource).Namespace(e.ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return 0, err
			}
			return len(l.Items), nil
		}},
		{"pods", func() (int, error) {
			l, err := e.cs.CoreV1().Pods(e.ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return 0, err
			}
			return len(l.Items), nil
		}},
	} {
		n, err := r.list()
		if err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("after destroy: %d %s left in %s", n, r.what, e.ns)
		}
	}
	return nil
}

// A Sandbox with its own pod: created by the provider, its pod made by the
// controller, the helper installed by an ephemeral container and read-only
// to the workspace, the file read back; the next plan is empty; an import
// by its id reads the block back; a Sandbox deleted out of band is created
// again by the next apply; destroy leaves nothing.
func TestAccKubernetesAgentSandbox_sandbox(t *testing.T) {
	t.Parallel()
	e := newAgentEnv(t)
	cfg := e.config(inlineSandbox(""), "", agentFile)
	var first string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             e.checkNoSandboxes,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: resource.ComposeTestCheckFunc(
					e.checkSandboxPod,
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "root", "/workspace"),
					func(s *terraform.State) error { first = sandboxNameOf(s); return nil },
				),
			},
			{Config: cfg, PlanOnly: true},
			{ResourceName: "sandbox_workspace.ws", ImportState: true, ImportStateVerify: true},
			{
				PreConfig: func() {
					ctx := context.Background()
					must(t, e.dc.Resource(kubernetes.SandboxResource).Namespace(e.ns).Delete(ctx, first, metav1.DeleteOptions{}))
					for end := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
						_, err := e.sandbox(first)
						_, perr := e.cs.CoreV1().Pods(e.ns).Get(ctx, first, metav1.GetOptions{})
						if apierrors.IsNotFound(err) && apierrors.IsNotFound(perr) {
							break
						}
						if time.Now().After(end) {
							t.Fatalf("Sandbox %s still there a minute after its deletion: %v, pod %v", first, err, perr)
						}
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionCreate),
				}},
				Check: resource.ComposeTestCheckFunc(e.checkSandboxPod, func(s *terraform.State) error {
					if sandboxNameOf(s) == first {
						return fmt.Errorf("Sandbox %s was not created anew", first)
					}
					return nil
				}),
			},
		},
	})
}

// A Sandbox with lifetime = "30s" is shut down by the controller with no
// Terraform run in between (its pod deleted, the Sandbox kept, Ready False
// with reason SandboxExpired); the next plan says it expired and replaces
// it, and the apply deletes the expired Sandbox.
func TestAccKubernetesAgentSandbox_lifetime(t *testing.T) {
	t.Parallel()
	e := newAgentEnv(t)
	log := &warningLog{}
	cfg := e.config(inlineSandbox(""), `lifetime = "30s"`, agentFile)
	var first string
	var at time.Time
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: recordingFactories(log),
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             e.checkNoSandboxes,
		Steps: []resource.TestStep{
			{Config: cfg, Check: func(s *terraform.State) error {
				if err := expiresAtOf(t, s, "sandbox_workspace.ws", 30*time.Second, &at); err != nil {
					return err
				}
				first = sandboxNameOf(s)
				u, err := e.sandbox(first)
				if err != nil {
					return err
				}
				shutdown, _, _ := unstructured.NestedString(u.Object, "spec", "shutdownTime")
				policy, _, _ := unstructured.NestedString(u.Object, "spec", "shutdownPolicy")
				if shutdown != at.UTC().Format(time.RFC3339) || policy != kubernetes.ShutdownRetain {
					return fmt.Errorf("Sandbox %s shutdownTime %q policy %q; want %s and Retain", first, shutdown, policy, at.UTC().Format(time.RFC3339))
				}
				return nil
			}},
			{
				PreConfig: func() {
					sleepUntil(at)
					ctx := context.Background()
					for end := at.Add(45 * time.Second); ; time.Sleep(250 * time.Millisecond) {
						_, perr := e.cs.CoreV1().Pods(e.ns).Get(ctx, first, metav1.GetOptions{})
						u, err := e.sandbox(first)
						must(t, err)
						conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
						if apierrors.IsNotFound(perr) && strings.Contains(fmt.Sprint(conds), "SandboxExpired") {
							break
						}
						if time.Now().After(end) {
							t.Fatalf("45 s after the shutdown time %s: pod %v, conditions %v", at, perr, conds)
						}
					}
					log.reset()
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionDestroyBeforeCreate),
					expectWarning{log, func() []string { return []string{"Workspace expired", "expired at " + at.Format(time.RFC3339)} }},
				}},
				Check: func(s *terraform.State) error {
					if _, err := e.sandbox(first); !apierrors.IsNotFound(err) {
						return fmt.Errorf("the expired Sandbox %s is still there after its replacement: %w", first, err)
					}
					return e.checkSandboxPod(s)
				},
			},
		},
	})
}

// staticVolume makes a PersistentVolume on the node (a host path) of
// storage class class, for the one claim a Sandbox makes: the test
// cluster has no dynamic provisioner.
func (e *agentEnv) staticVolume(t *testing.T, class string) {
	t.Helper()
	dir := t.TempDir()
	must(t, os.Chmod(dir, 0o777))
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: class},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: k8sresource.MustParse("1Gi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			StorageClassName:              class,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: dir}},
		},
	}
	_, err := e.cs.CoreV1().PersistentVolumes().Create(context.Background(), pv, metav1.CreateOptions{})
	must(t, err)
	t.Cleanup(func() {
		_ = e.cs.CoreV1().PersistentVolumes().Delete(context.Background(), class, metav1.DeleteOptions{})
	})
}

// run_state = "stopped" suspends the Sandbox (no pod; the Sandbox and its
// volume claim stay, and its entries plan nothing), "running" resumes it
// in a new pod that has the helper again, and the file on its persistent
// root is still there.
func TestAccKubernetesAgentSandbox_suspendResume(t *testing.T) {
	t.Parallel()
	e := newAgentEnv(t)
	class := "sandbox-acc-" + e.ns
	e.staticVolume(t, class)
	block := inlineSandbox(fmt.Sprintf(`volume_claim_template = { size = "1Gi", storage_class_name = %q }`, class))
	cfg := func(state string) string { return e.config(block, fmt.Sprintf("run_state = %q", state), agentFile) }
	var name string
	var firstUID string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             e.checkNoSandboxes,
		Steps: []resource.TestStep{
			{Config: cfg("running"), Check: resource.ComposeTestCheckFunc(e.checkSandboxPod, func(s *terraform.State) error {
				name = sandboxNameOf(s)
				p, err := e.cs.CoreV1().Pods(e.ns).Get(context.Background(), name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				firstUID = string(p.UID)
				pvc, err := e.cs.CoreV1().PersistentVolumeClaims(e.ns).Get(context.Background(), "workspace-"+name, metav1.GetOptions{})
				if err != nil || pvc.Status.Phase != corev1.ClaimBound || pvc.Spec.VolumeName != class {
					return fmt.Errorf("the root's claim %+v: %w", pvc, err)
				}
				return nil
			})},
			{Config: cfg("stopped"), Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr("sandbox_workspace.ws", "running", "false"),
				func(*terraform.State) error {
					if _, err := e.cs.CoreV1().Pods(e.ns).Get(context.Background(), name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
						return fmt.Errorf("the pod of the suspended Sandbox %s: %w", name, err)
					}
					u, err := e.sandbox(name)
					if err != nil {
						return err
					}
					if mode, _, _ := unstructured.NestedString(u.Object, "spec", "operatingMode"); mode != kubernetes.OperatingModeSuspended {
						return fmt.Errorf("Sandbox %s operatingMode %q", name, mode)
					}
					_, err = e.cs.CoreV1().PersistentVolumeClaims(e.ns).Get(context.Background(), "workspace-"+name, metav1.GetOptions{})
					return err
				})},
			{Config: cfg("stopped"), PlanOnly: true},
			{Config: cfg("running"), Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr("sandbox_workspace.ws", "running", "true"),
				e.checkSandboxPod,
				func(*terraform.State) error {
					p, err := e.cs.CoreV1().Pods(e.ns).Get(context.Background(), name, metav1.GetOptions{})
					if err != nil {
						return err
					}
					if string(p.UID) == firstUID {
						return fmt.Errorf("the resumed pod %s is the pod from before the suspend", name)
					}
					return nil
				})},
		},
	})
}
