package provider

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// checkExpiringPod: the pod runs with the state's expires_at as annotation
// and a deadline of at most the lifetime; with remove, an expiry Job owns
// it.
func (e *kubeEnv) checkExpiringPod(t *testing.T, lifetime time.Duration, remove bool, name *string, at *time.Time) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		if err := expiresAtOf(t, s, "sandbox_workspace.ws", lifetime, at); err != nil {
			return err
		}
		*name = e.pod(s)
		ctx := context.Background()
		p, err := e.cs.CoreV1().Pods(e.ns).Get(ctx, *name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if p.Status.Phase != corev1.PodRunning {
			return fmt.Errorf("pod %s is %s", *name, p.Status.Phase)
		}
		want := s.RootModule().Resources["sandbox_workspace.ws"].Primary.Attributes["expires_at"]
		if got := p.Annotations["sandbox.expires_at"]; got != want {
			return fmt.Errorf("annotation sandbox.expires_at = %q, state expires_at = %q", got, want)
		}
		// Whole seconds to expires_at, which is rounded up to a second.
		if d := p.Spec.ActiveDeadlineSeconds; d == nil || *d < 1 || *d > int64(lifetime/time.Second)+1 {
			return fmt.Errorf("pod activeDeadlineSeconds = %v, want 1..%d", d, int64(lifetime/time.Second)+1)
		}
		owned := len(p.OwnerReferences) == 1 && p.OwnerReferences[0].Kind == "Job" && p.OwnerReferences[0].Name == *name
		if owned != remove {
			return fmt.Errorf("pod owner references %+v; want a Job owner: %v", p.OwnerReferences, remove)
		}
		return nil
	}
}

// A pod workspace with a lifetime ends with DeadlineExceeded at its
// expiry; the next plan says it expired and creates a new one.
func TestAccKubernetesWorkspace_lifetimeStops(t *testing.T) {
	e := newKubeEnv(t)
	log := &warningLog{}
	var first string
	var at time.Time
	cfg := e.config("", `lifetime = "15s"`, "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: recordingFactories(log),
		Steps: []resource.TestStep{
			{Config: cfg, Check: e.checkExpiringPod(t, 15*time.Second, false, &first, &at)},
			{
				PreConfig: func() {
					sleepUntil(at)
					for end := at.Add(30 * time.Second); ; time.Sleep(250 * time.Millisecond) {
						p, err := e.cs.CoreV1().Pods(e.ns).Get(context.Background(), first, metav1.GetOptions{})
						if err != nil {
							t.Fatalf("pod %s after its expiry: %v", first, err)
						}
						if p.Status.Phase == corev1.PodFailed {
							if p.Status.Reason != "DeadlineExceeded" {
								t.Fatalf("pod %s failed with reason %q, want DeadlineExceeded", first, p.Status.Reason)
							}
							break
						}
						if time.Now().After(end) {
							t.Fatalf("pod %s is still %s 30 s after its expiry %s", first, p.Status.Phase, at)
						}
					}
					log.reset()
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionCreate),
					expectWarning{log, func() []string { return []string{"Workspace expired", "expired at " + at.Format(time.RFC3339)} }},
				}},
				Check: func(s *terraform.State) error {
					var name string
					var next time.Time
					if err := e.checkExpiringPod(t, 15*time.Second, false, &name, &next)(s); err != nil {
						return err
					}
					if name == first {
						return fmt.Errorf("pod %s was not re-created", name)
					}
					return nil
				},
			},
		},
	})
}

// With on_expiry = "remove" the cluster deletes the pod and its Service at
// the expiry by itself (the expiry Job's deadline, its TTL, the garbage
// collector), while no provider runs.
func TestAccKubernetesWorkspace_lifetimeRemoves(t *testing.T) {
	e := newKubeEnv(t)
	log := &warningLog{}
	var first string
	var at time.Time
	cfg := e.config("", `
  lifetime      = "15s"
  on_expiry     = "remove"
  exposed_ports = [8080]`, "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: recordingFactories(log),
		Steps: []resource.TestStep{
			{Config: cfg, Check: resource.ComposeTestCheckFunc(
				e.checkExpiringPod(t, 15*time.Second, true, &first, &at),
				func(*terraform.State) error {
					_, err := e.cs.CoreV1().Services(e.ns).Get(context.Background(), first, metav1.GetOptions{})
					return err
				})},
			{
				PreConfig: func() {
					sleepUntil(at)
					ctx := context.Background()
					for end := at.Add(45 * time.Second); ; time.Sleep(250 * time.Millisecond) {
						_, perr := e.cs.CoreV1().Pods(e.ns).Get(ctx, first, metav1.GetOptions{})
						_, serr := e.cs.CoreV1().Services(e.ns).Get(ctx, first, metav1.GetOptions{})
						_, jerr := e.cs.BatchV1().Jobs(e.ns).Get(ctx, first, metav1.GetOptions{})
						if apierrors.IsNotFound(perr) && apierrors.IsNotFound(serr) && apierrors.IsNotFound(jerr) {
							break
						}
						if time.Now().After(end) {
							t.Fatalf("45 s after the expiry %s: pod %v, service %v, job %v", at, perr, serr, jerr)
						}
					}
					log.reset()
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionCreate),
					expectWarning{log, func() []string { return []string{"Workspace expired", "expired at " + at.Format(time.RFC3339)} }},
				}},
				Check: func(s *terraform.State) error {
					var name string
					var next time.Time
					if err := e.checkExpiringPod(t, 15*time.Second, true, &name, &next)(s); err != nil {
						return err
					}
					if name == first {
						return fmt.Errorf("pod %s was not re-created", name)
					}
					return nil
				},
			},
		},
	})
}
