package kubernetes

import (
	"context"
	"fmt"
	"math"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// Annotations recording a workspace pod's expiry (Spec.Expiry), read back
// on refresh and import.
const (
	AnnotationExpiresAt = "sandbox.expires_at" // RFC 3339, UTC
	AnnotationLifetime  = "sandbox.lifetime"   // as configured ("2h")
	AnnotationOnExpiry  = "sandbox.on_expiry"  // "stop" or "remove"
)

// The cluster enforces a pod workspace's expiry by itself:
//
//   - the pod's activeDeadlineSeconds: the kubelet kills it at the deadline
//     and it ends Failed with reason DeadlineExceeded ("stop");
//   - for "remove", an expiry Job named as the pod, with the same
//     activeDeadlineSeconds, parallelism 0 (it never runs a pod) and
//     ttlSecondsAfterFinished 0, owns the pod (which owns its Service): at
//     the deadline the Job controller fails the Job, the TTL controller
//     deletes it, and the garbage collector deletes the pod and the Service.
//     Only the default controllers of kube-controller-manager are needed.

// deadlineSeconds is the whole seconds from now to the expiry, at least 1.
func deadlineSeconds(x sandbox.Expiry, now time.Time) int64 {
	s := int64(math.Ceil(x.ExpiresAt.Sub(now).Seconds()))
	return max(s, 1)
}

// applyExpiry puts the expiry on the pod: annotations and the deadline.
func (s Spec) applyExpiry(p *corev1.Pod, now time.Time) {
	if s.Expiry.IsZero() {
		return
	}
	p.Annotations[AnnotationExpiresAt] = s.Expiry.String()
	p.Annotations[AnnotationLifetime] = s.Expiry.Lifetime
	p.Annotations[AnnotationOnExpiry] = s.Expiry.OnExpiry
	d := deadlineSeconds(s.Expiry, now)
	p.Spec.ActiveDeadlineSeconds = &d
}

// expiryJob is the Job that removes the pod at the expiry (see above).
func (s Spec) expiryJob(now time.Time) *batchv1.Job {
	zero, ttl, backoff := int32(0), int32(0), int32(0)
	d := deadlineSeconds(s.Expiry, now)
	no := false
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name: PodName(s.WorkspaceID), Namespace: s.Namespace, Labels: s.labels(),
			Annotations: map[string]string{AnnotationExpiresAt: s.Expiry.String()},
		},
		Spec: batchv1.JobSpec{
			Parallelism: &zero, ActiveDeadlineSeconds: &d, TTLSecondsAfterFinished: &ttl, BackoffLimit: &backoff,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy:                corev1.RestartPolicyNever,
				AutomountServiceAccountToken: &no,
				Containers: []corev1.Container{{
					Name: "expiry", Image: s.Image, ImagePullPolicy: corev1.PullPolicy(s.ImagePullPolicy), Command: []string{"true"},
				}},
			}},
		},
	}
}

// createExpiryJob creates the expiry Job of a workspace whose expiry
// removes it and returns the owner reference its pod carries; nil when
// there is nothing to create.
func createExpiryJob(ctx context.Context, cs kubernetes.Interface, s Spec, now time.Time) ([]metav1.OwnerReference, error) {
	if s.Expiry.IsZero() || !s.Expiry.Remove() {
		return nil, nil
	}
	var job *batchv1.Job
	if err := call(ctx, func() error {
		var err error
		job, err = cs.BatchV1().Jobs(s.Namespace).Create(ctx, s.expiryJob(now), metav1.CreateOptions{})
		return err
	}); err != nil {
		return nil, fmt.Errorf("creating the expiry job %s/%s (on_expiry = \"remove\" needs permission to create jobs): %w",
			s.Namespace, PodName(s.WorkspaceID), err)
	}
	return []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID}}, nil
}

// deleteExpiryJob deletes the expiry Job named name, if any; a Job that is
// not there, or that the credentials may not delete (a workspace without
// one, on a cluster granting no jobs), is not an error: it deletes itself
// at its deadline.
func deleteExpiryJob(ctx context.Context, cs kubernetes.Interface, ns, name string, opts metav1.DeleteOptions) error {
	err := call(ctx, func() error { return cs.BatchV1().Jobs(ns).Delete(ctx, name, opts) })
	if err == nil || apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
		return nil
	}
	return fmt.Errorf("deleting the expiry job %s/%s: %w", ns, name, err)
}

// expiryOf reads the expiry a pod's annotations record (zero when none or
// unparsable).
// expiryAnnotations are the annotations recording x (none for no expiry).
func expiryAnnotations(x sandbox.Expiry) map[string]string {
	if x.IsZero() {
		return nil
	}
	return map[string]string{AnnotationExpiresAt: x.String(), AnnotationLifetime: x.Lifetime, AnnotationOnExpiry: x.OnExpiry}
}

func expiryOf(a map[string]string) sandbox.Expiry {
	x, err := sandbox.ParseExpiry(a[AnnotationLifetime], a[AnnotationOnExpiry], a[AnnotationExpiresAt])
	if err != nil {
		return sandbox.Expiry{}
	}
	return x
}
