package kubernetes

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Waiting for agent-sandbox objects: a warm pool until enough of its
// Sandboxes are ready, an object until it is gone. Both poll (the
// controller's status is the only signal) until ctx ends; an error then
// says where things stand and why.

// memberCheckEvery spaces the looks at a waiting pool's members, which
// cost a list and a read per member.
const memberCheckEvery = 5 * time.Second

// WaitWarmPool waits until the SandboxWarmPool ns/name has at least
// replicas ready Sandboxes, counted by its controller for its current spec
// (status.observedGeneration caught up). A member whose pod cannot start
// (an image that may not be pulled, a bad container config) fails it at
// once; when ctx ends first, the error says how many are ready and why a
// member is not.
func (c *Cluster) WaitWarmPool(ctx context.Context, ns, name string, replicas int64) (spec.KubernetesWarmPoolStatus, error) {
	var (
		st        poolState
		lastCheck time.Time
	)
	for delay := 250 * time.Millisecond; ; delay = min(delay*2, 2*time.Second) {
		u, found, err := c.getObject(ctx, SandboxWarmPoolResource, ns, name)
		if err != nil && ctx.Err() == nil {
			return st.KubernetesWarmPoolStatus, err
		}
		if err == nil && !found {
			return st.KubernetesWarmPoolStatus, fmt.Errorf("%s %s/%s was deleted while waiting for its Sandboxes", KindSandboxWarmPool, ns, name)
		}
		if err == nil {
			if st, err = readWarmPoolObject(u); err != nil {
				return st.KubernetesWarmPoolStatus, err
			}
			if st.Observed && st.ReadyReplicas >= replicas {
				return st.KubernetesWarmPoolStatus, nil
			}
			if time.Since(lastCheck) >= memberCheckEvery {
				lastCheck = time.Now()
				if why, final := c.poolMembers(ctx, ns, st); final {
					return st.KubernetesWarmPoolStatus, fmt.Errorf("%s %s/%s: %d of %d Sandboxes ready, and one cannot start: %s",
						KindSandboxWarmPool, ns, name, st.ReadyReplicas, replicas, why)
				}
			}
		}
		select {
		case <-ctx.Done():
			return st.KubernetesWarmPoolStatus, c.poolNotReady(ctx, ns, name, st, replicas)
		case <-time.After(delay):
		}
	}
}

// poolNotReady is the error of a wait for a pool that ended with ctx: how
// many Sandboxes are ready and why one is not.
func (c *Cluster) poolNotReady(ctx context.Context, ns, name string, st poolState, replicas int64) error {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 20*time.Second)
	defer cancel()
	why, _ := c.poolMembers(dctx, ns, st)
	return &waitError{err: ctx.Err(), msg: fmt.Sprintf("%s %s/%s has %d of %d Sandboxes ready: %s", KindSandboxWarmPool, ns, name,
		st.ReadyReplicas, replicas, why)}
}

// waitError is a wait that ended with its context: it says where things
// stand, and wraps the context's error without repeating it.
type waitError struct {
	msg string
	err error
}

func (e *waitError) Error() string { return e.msg }
func (e *waitError) Unwrap() error { return e.err }

// poolMembers says why the pool of st is short of ready Sandboxes: the
// first member that is not ready, its condition and its pod's reason and
// events, or why it has none. final is true when that pod can never start.
func (c *Cluster) poolMembers(ctx context.Context, ns string, st poolState) (why string, final bool) {
	if !st.Observed || st.Selector == "" {
		return "the agent-sandbox controller has not taken up the pool's current spec yet (does it run, with its " +
			"extensions?)", false
	}
	dc, err := c.dynamic()
	if err != nil {
		return err.Error(), false
	}
	list, err := dc.Resource(SandboxResource).Namespace(ns).List(ctx, metav1.ListOptions{LabelSelector: st.Selector})
	if err != nil {
		return agentErr(err, SandboxResource, "list", ns, "").Error(), false
	}
	items := list.Items
	sort.Slice(items, func(i, j int) bool { return items[i].GetName() < items[j].GetName() })
	for i := range items {
		sb, err := ReadSandbox(&items[i])
		if err != nil {
			return err.Error(), false
		}
		if sb.Ready.True() || items[i].GetDeletionTimestamp() != nil {
			continue
		}
		what := fmt.Sprintf("Sandbox %s is not ready", items[i].GetName())
		if sb.Ready.Reason != "" {
			what += fmt.Sprintf(" (%s: %s)", sb.Ready.Reason, sb.Ready.Message)
		}
		pod, err := c.podOf(ctx, ns, sb.PodName)
		switch {
		case err != nil:
			return what + "; " + err.Error(), false
		case pod == nil:
			return what + "; it has no pod yet", false
		}
		r := waitingReason(pod)
		return fmt.Sprintf("%s; pod %s: %s%s", what, pod.Name, podReason(pod), c.events(ctx, ns, pod.Name)), finalReasons[r]
	}
	if len(items) == 0 {
		if _, found, err := c.getObject(ctx, SandboxTemplateResource, ns, st.Template); err == nil && !found {
			return fmt.Sprintf("it has no Sandboxes: its %s %s/%s does not exist", KindSandboxTemplate, ns, st.Template), false
		}
		return "it has no Sandboxes yet", false
	}
	return fmt.Sprintf("%d Sandboxes, none of them waiting for its pod (the controller has not counted them yet)", len(items)), false
}

// podOf reads the pod ns/name; nil when there is none.
func (c *Cluster) podOf(ctx context.Context, ns, name string) (*corev1.Pod, error) {
	cs, _, err := c.client()
	if err != nil {
		return nil, err
	}
	var p *corev1.Pod
	err = call(ctx, func() error {
		var gerr error
		p, gerr = cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		return gerr
	})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading pod %s/%s: %w", ns, name, err)
	}
	return p, nil
}

// waitGone waits until ns/name of gvr no longer exists (what a foreground
// deletion owns goes first); when ctx ends first, the error says what
// holds it.
func (c *Cluster) waitGone(ctx context.Context, gvr schema.GroupVersionResource, ns, name string) error {
	var last *unstructured.Unstructured
	for delay := 100 * time.Millisecond; ; delay = min(delay*2, time.Second) {
		u, found, err := c.getObject(ctx, gvr, ns, name)
		switch {
		case err == nil && !found:
			return nil
		case err != nil && !errors.Is(err, ctx.Err()):
			return err
		case err == nil:
			last = u
		}
		select {
		case <-ctx.Done():
			held := ""
			if last != nil && len(last.GetFinalizers()) > 0 {
				held = fmt.Sprintf(" (finalizers %v left)", last.GetFinalizers())
			}
			return fmt.Errorf("%w: %s %s/%s is still being deleted%s", ctx.Err(), kinds[gvr], ns, name, held)
		case <-time.After(delay):
		}
	}
}
