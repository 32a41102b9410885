package kubernetes

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// waitRunning polls the pod until ready says so; a pod that failed,
// or is still waiting when timeout passes, is an error with the reason the
// kubelet gives and the pod's recent events.
func (c *Cluster) waitRunning(ctx context.Context, ns, name string, timeout time.Duration, ready func(*corev1.Pod) bool) error {
	cs, _, err := c.client()
	if err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	for delay := 100 * time.Millisecond; ; delay = min(delay*2, 2*time.Second) {
		var pod *corev1.Pod
		err := call(ctx, func() error {
			var gerr error
			pod, gerr = cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
			return gerr
		})
		if err != nil {
			return fmt.Errorf("reading pod %s/%s: %w", ns, name, err)
		}
		if ready(pod) {
			return nil
		}
		switch pod.Status.Phase {
		case corev1.PodFailed, corev1.PodSucceeded:
			return fmt.Errorf("pod %s/%s stopped before it was ready (%s): %s%s", ns, name, pod.Status.Phase, podReason(pod), c.events(ctx, ns, name))
		}
		if r := waitingReason(pod); finalReasons[r] {
			return fmt.Errorf("pod %s/%s cannot start: %s%s", ns, name, podReason(pod), c.events(ctx, ns, name))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pod %s/%s did not start within %s: %s%s", ns, name, timeout, podReason(pod), c.events(ctx, ns, name))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
	}
}

// finalReasons are the kubelet's waiting reasons that no retry clears, so
// creation fails at once instead of at the start timeout.
var finalReasons = map[string]bool{"ErrImageNeverPull": true, "InvalidImageName": true, "CreateContainerConfigError": true}

// waitingReason is the final reason (finalReasons) the workspace container
// or the helper init container waits for, or "".
func waitingReason(p *corev1.Pod) string {
	for _, st := range append(append([]corev1.ContainerStatus{}, p.Status.ContainerStatuses...), p.Status.InitContainerStatuses...) {
		if w := st.State.Waiting; w != nil && finalReasons[w.Reason] {
			return w.Reason
		}
	}
	return ""
}

// helperRunning reports whether the pod's helper init container runs, so
// that the helper can be installed through it.
func helperRunning(p *corev1.Pod) bool {
	for _, st := range p.Status.InitContainerStatuses {
		if st.Name == helperContainerName {
			return st.State.Running != nil
		}
	}
	return false
}

func containerRunning(p *corev1.Pod) bool {
	for _, st := range p.Status.ContainerStatuses {
		if st.Name == containerName {
			return st.State.Running != nil
		}
	}
	return false
}

// podReason is the most specific reason the pod gives for not running:
// the workspace container's, else the helper init container's (which
// exits with 0 by design).
func podReason(p *corev1.Pod) string {
	statuses := append([]corev1.ContainerStatus{}, p.Status.ContainerStatuses...)
	for _, st := range p.Status.InitContainerStatuses {
		if st.State.Terminated == nil || st.State.Terminated.ExitCode != 0 {
			statuses = append(statuses, st)
		}
	}
	for _, st := range statuses {
		if w := st.State.Waiting; w != nil && w.Reason != "" {
			return strings.TrimSpace(w.Reason + ": " + w.Message)
		}
		if t := st.State.Terminated; t != nil {
			return strings.TrimSpace(fmt.Sprintf("%s (exit code %d): %s", t.Reason, t.ExitCode, t.Message))
		}
	}
	for _, cond := range p.Status.Conditions {
		if cond.Status != corev1.ConditionTrue && cond.Reason != "" {
			return strings.TrimSpace(cond.Reason + ": " + cond.Message)
		}
	}
	if p.Status.Reason != "" {
		return strings.TrimSpace(p.Status.Reason + ": " + p.Status.Message)
	}
	return "phase " + string(p.Status.Phase)
}

// events lists the pod's last few events, for errors.
func (c *Cluster) events(ctx context.Context, ns, name string) string {
	cs, _, err := c.client()
	if err != nil {
		return ""
	}
	list, err := cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + name})
	if err != nil || len(list.Items) == 0 {
		return ""
	}
	items := list.Items
	sort.Slice(items, func(i, j int) bool { return items[i].LastTimestamp.Before(&items[j].LastTimestamp) })
	if len(items) > 5 {
		items = items[len(items)-5:]
	}
	var b strings.Builder
	b.WriteString("\nevents:")
	for _, e := range items {
		fmt.Fprintf(&b, "\n  %s %s: %s", e.Type, e.Reason, strings.TrimSpace(e.Message))
	}
	return b.String()
}
