package kubernetes

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// WaitReady waits until the pod of b reports the Ready condition (every
// container ready, readiness probes passed), for at most timeout; a pod
// that fails or cannot start is an error with the kubelet's reason.
func (b *Backend) WaitReady(ctx context.Context, timeout time.Duration) error {
	return b.c.waitRunning(ctx, b.ns, b.name, timeout, podReady)
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
