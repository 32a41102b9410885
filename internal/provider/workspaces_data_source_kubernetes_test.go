package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/kubetest"
)

// A pod workspace whose state is lost is listed by namespace and label
// with its id, pod, run state and creation time; pods made by hand with
// its labels (one with its annotations too, under a new workspace UUID and
// the matching name, with a read-only emptyDir at the helper's path) are
// not; the listed id imports.
func TestAccKubernetesWorkspaces_orphans(t *testing.T) {
	env := newKubeEnv(t)
	run := "orphans-" + uuid.NewString()[:8]
	var dir, wsID, podName string
	var byHand []string
	first := env.config(fmt.Sprintf("labels = { ci_run = %q }", run), "", `
output "dir" {
  value = abspath(path.root)
}
`)
	provider := fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
  kubernetes {
    config_path = %q
  }
}

data "sandbox_workspaces" "run" {
  kubernetes {
    namespace = %q
  }
  labels = { ci_run = %q }
}
`, env.base, os.Getenv("KUBECONFIG"), env.ns, run)
	cancelRun := func() {
		must(t, os.Remove(filepath.Join(dir, "terraform.tfstate")))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		pods := env.cs.CoreV1().Pods(env.ns)
		ws, err := pods.Get(ctx, podName, metav1.GetOptions{})
		must(t, err)
		copyPod := kubetest.BusyboxPod("copy-"+run, ws.Labels)
		fresh := uuid.NewString()
		labels := map[string]string{}
		for k, v := range ws.Labels {
			labels[k] = v
		}
		labels["sandbox.workspace_id"] = fresh
		lookalike := kubetest.BusyboxPod("sandbox-"+fresh, labels)
		lookalike.Annotations = ws.Annotations
		no, yes := false, true
		lookalike.Spec.ShareProcessNamespace, lookalike.Spec.AutomountServiceAccountToken = &yes, &no
		lookalike.Spec.Containers[0].Name = "workspace"
		lookalike.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "helper", MountPath: "/.sandbox-fs-helper", ReadOnly: true}}
		lookalike.Spec.Volumes = []corev1.Volume{{Name: "helper", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
		for _, p := range []*corev1.Pod{copyPod, lookalike} {
			_, err := pods.Create(ctx, p, metav1.CreateOptions{})
			must(t, err)
			byHand = append(byHand, p.Name)
		}
	}
	check := func(s *terraform.State) error {
		listed, err := listedWorkspaces(s, "data.sandbox_workspaces.run")
		if err != nil {
			return err
		}
		if len(listed) != 1 {
			return fmt.Errorf("the listing holds %d workspaces, want only %s: %v (pods made by hand: %v)", len(listed), wsID, listed, byHand)
		}
		l := listed[0]
		p, err := env.cs.CoreV1().Pods(env.ns).Get(context.Background(), podName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		want := map[string]string{
			"id": wsID, "kind": "kubernetes", "namespace": env.ns, "pod_name": podName, "image": kubetest.WorkspaceImage,
			"root": "/workspace", "run_state": "running", "labels.%": "1", "labels.ci_run": run,
			"created_at": p.CreationTimestamp.UTC().Format(time.RFC3339),
		}
		if fromPod := fmt.Sprintf("kubernetes:%s:%s", p.Labels["sandbox.workspace_id"], env.ns); fromPod != wsID {
			return fmt.Errorf("pod %s carries workspace %s, the state held %s", podName, fromPod, wsID)
		}
		for k, v := range want {
			if l[k] != v {
				return fmt.Errorf("%s = %q, want %q", k, l[k], v)
			}
		}
		if l["container_id"] != "" || l["expires_at"] != "" {
			return fmt.Errorf("container_id %q and expires_at %q must be null", l["container_id"], l["expires_at"])
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: first,
				Check: func(s *terraform.State) error {
					dir = s.RootModule().Outputs["dir"].Value.(string)
					wsID, podName = s.RootModule().Resources["sandbox_workspace.ws"].Primary.ID, env.pod(s)
					return nil
				},
			},
			{PreConfig: cancelRun, Config: provider, Check: check},
			{
				Config: provider + fmt.Sprintf(`
resource "sandbox_workspace" "x" {
  kubernetes {
    namespace         = %q
    image             = %q
    image_pull_policy = "Never"
  }
}
`, env.ns, kubetest.WorkspaceImage),
				ResourceName: "sandbox_workspace.x", ImportState: true,
				ImportStateIdFunc: func(s *terraform.State) (string, error) {
					listed, err := listedWorkspaces(s, "data.sandbox_workspaces.run")
					if err != nil {
						return "", err
					}
					if len(listed) != 1 {
						return "", fmt.Errorf("want one listed workspace: %v", listed)
					}
					return listed[0]["id"], nil
				},
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					for _, st := range states {
						if st.ID == wsID && st.Attributes["kubernetes.pod_name"] == podName {
							return nil
						}
					}
					return fmt.Errorf("imported %v, want %s with pod %s", states, wsID, podName)
				},
			},
		},
	})
}
