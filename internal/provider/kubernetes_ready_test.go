package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestAccKubernetesWorkspace_waitUntilReady: with wait_until = "healthy",
// the create of a pod workspace returns only once the pod reports the
// Ready condition, read from the API server right after the apply.
func TestAccKubernetesWorkspace_waitUntilReady(t *testing.T) {
	env := newKubeEnv(t)
	cfg := env.config("", `wait_until = "healthy"`, "")
	ready := func(s *terraform.State) error {
		pod, err := env.cs.CoreV1().Pods(env.ns).Get(context.Background(), env.pod(s), metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range pod.Status.Conditions {
			if c.Type == corev1.PodReady {
				if c.Status != corev1.ConditionTrue {
					return fmt.Errorf("pod %s is not Ready when the apply returns: %s %s", pod.Name, c.Reason, c.Message)
				}
				return nil
			}
		}
		return fmt.Errorf("pod %s has no Ready condition when the apply returns", pod.Name)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{Config: cfg, Check: resource.ComposeTestCheckFunc(ready,
				resource.TestCheckResourceAttr("sandbox_workspace.ws", "wait_until", "healthy"),
				env.expectSh("echo up", "up"))},
			{Config: cfg, PlanOnly: true},
		},
	})
}
