package kubernetes

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/incontainer"
)

// A workspace of the agent_sandbox kind is an agent-sandbox object the
// provider created: a Sandbox (whose pod the controller makes from the
// workspace's pod template) or a SandboxClaim on a SandboxWarmPool (bound
// by the controller to one of the pool's ready Sandboxes, or to a new one
// when the pool is empty). Either is named PodName(<workspace UUID>); the
// pod of a Sandbox is named as the Sandbox. Everything inside goes through
// the pod's exec, as for the provider's own pods.

// AgentRef names the object of an agent-sandbox workspace.
type AgentRef struct {
	Namespace, Name string
	// Claim is true for a SandboxClaim, false for a Sandbox.
	Claim bool
}

func (r AgentRef) gvr() schema.GroupVersionResource {
	if r.Claim {
		return SandboxClaimResource
	}
	return SandboxResource
}

// String is "SandboxClaim ns/name" or "Sandbox ns/name".
func (r AgentRef) String() string { return kinds[r.gvr()] + " " + r.Namespace + "/" + r.Name }

// AgentWorkspace is what LookupAgent reports of a workspace's object.
type AgentWorkspace struct {
	// SandboxName names the Sandbox serving the workspace, and its pod;
	// "" while a claim is not bound.
	SandboxName string
	// Claim is the claim's state (a claim only).
	Claim ClaimState
	// Sandbox is the Sandbox's state, read only when its pod does not
	// run (SandboxRead says so).
	Sandbox     SandboxState
	SandboxRead bool
	// Pod is the Sandbox's pod when PodFound.
	Pod      Pod
	PodFound bool
}

// claimFatal are the reasons a claim gives for not being ready that no
// wait clears.
var claimFatal = map[string]bool{
	"WarmPoolNotFound": true, "TemplateNotFound": true, "InvalidMetadata": true, "EnvVarsInjectionRejected": true,
	"VolumeClaimTemplatesError": true, "AdoptionConflict": true, "ClaimExpired": true,
}

// CreateSandbox creates the Sandbox of s (named PodName(s.WorkspaceID)),
// waits for the pod the controller makes from it to run, installs the
// helper, creates the root and provisions users and groups. The Sandbox
// is deleted again when a step fails.
func (c *Cluster) CreateSandbox(ctx context.Context, s Spec, o SandboxOptions) (*Backend, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	h, err := incontainer.FindHelper()
	if err != nil {
		return nil, err
	}
	name := PodName(s.WorkspaceID)
	if !s.Expiry.IsZero() && o.ShutdownTime.IsZero() {
		o.ShutdownTime, o.ShutdownPolicy = s.Expiry.ExpiresAt, shutdownPolicy(s.Expiry)
	}
	u, err := s.Sandbox(name, h.Digest, o)
	if err != nil {
		return nil, err
	}
	ref := AgentRef{Namespace: s.Namespace, Name: name}
	if err := c.createObject(ctx, SandboxResource, u); err != nil {
		return nil, err
	}
	b, err := c.prepareAgent(ctx, ref, name, s)
	if err != nil {
		_ = c.RemoveAgent(context.WithoutCancel(ctx), ref)
		return nil, err
	}
	return b, nil
}

// ClaimSandbox creates the SandboxClaim PodName(s.WorkspaceID) on the warm
// pool, waits until the controller binds it to a Sandbox and that
// Sandbox's pod runs, installs the helper, creates the root (the pool's
// template's) and provisions s's users and groups. It returns the
// Sandbox's name. The claim is deleted again when a step fails.
func (c *Cluster) ClaimSandbox(ctx context.Context, s Spec, pool string, o ClaimOptions) (*Backend, string, error) {
	name := PodName(s.WorkspaceID)
	if a := s.accountsAnnotation(); a != "" {
		// The Sandbox's pod template keeps them: a pod made again (a
		// resume, an eviction) gets its accounts back from them.
		if o.PodAnnotations == nil {
			o.PodAnnotations = map[string]string{}
		}
		o.PodAnnotations[AnnotationAccounts] = a
	}
	if !s.Expiry.IsZero() && o.ShutdownTime.IsZero() {
		o.ShutdownTime, o.ShutdownPolicy = s.Expiry.ExpiresAt, shutdownPolicy(s.Expiry)
		if o.PodAnnotations == nil {
			o.PodAnnotations = map[string]string{}
		}
		for k, v := range expiryAnnotations(s.Expiry) {
			o.PodAnnotations[k] = v
		}
	}
	u, err := SandboxClaim(s.Namespace, name, pool, o)
	if err != nil {
		return nil, "", err
	}
	ref := AgentRef{Namespace: s.Namespace, Name: name, Claim: true}
	if err := c.createObject(ctx, SandboxClaimResource, u); err != nil {
		return nil, "", err
	}
	fail := func(err error) (*Backend, string, error) {
		_ = c.RemoveAgent(context.WithoutCancel(ctx), ref)
		return nil, "", err
	}
	sandbox, err := c.waitBound(ctx, ref, s.startTimeout())
	if err != nil {
		return fail(err)
	}
	b, err := c.prepareAgent(ctx, ref, sandbox, s)
	if err != nil {
		return fail(err)
	}
	return b, sandbox, nil
}

// shutdownPolicy is the shutdown policy that does what x's on_expiry
// says: "remove" deletes the object (and with it the Sandbox, its pod and
// volume claims), "stop" keeps it without a pod (a claim keeps itself,
// its Sandbox goes).
func shutdownPolicy(x sandbox.Expiry) string {
	if x.Remove() {
		return ShutdownDelete
	}
	return ShutdownRetain
}

func (s Spec) startTimeout() time.Duration {
	if s.StartTimeout > 0 {
		return s.StartTimeout
	}
	return DefaultStartTimeout
}

// waitBound waits until the claim ref names its Sandbox.
func (c *Cluster) waitBound(ctx context.Context, ref AgentRef, timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	// A warm pool binds within a few hundred milliseconds, which is most
	// of what a claim takes: look often at first.
	for i, delay := 0, 20*time.Millisecond; ; i++ {
		if i > 25 {
			delay = min(delay*2, time.Second)
		}
		u, found, err := c.getObject(ctx, SandboxClaimResource, ref.Namespace, ref.Name)
		if err != nil {
			return "", err
		}
		if !found {
			return "", fmt.Errorf("%s was deleted while it waited for a Sandbox", ref)
		}
		st, err := ReadSandboxClaim(u)
		if err != nil {
			return "", err
		}
		if st.SandboxName != "" {
			c.bound.Store(ref.Namespace+"/"+ref.Name, st.SandboxName)
			return st.SandboxName, nil
		}
		if claimFatal[st.Ready.Reason] {
			return "", fmt.Errorf("%s cannot get a Sandbox: %s: %s", ref, st.Ready.Reason, st.Ready.Message)
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("%s got no Sandbox within %s (%s); is the agent-sandbox controller running with its "+
				"extensions (--extensions)?", ref, timeout, orNone(st.Ready))
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(delay):
		}
	}
}

func orNone(c Condition) string {
	if c.Status == "" {
		return "no Ready condition yet"
	}
	return fmt.Sprintf("Ready=%s %s: %s", c.Status, c.Reason, c.Message)
}

// prepareAgent waits for the pod of the Sandbox sandbox to run, then
// makes it a workspace: the helper (installed by its first use), the
// root, 0755, and s's users and groups.
func (c *Cluster) prepareAgent(ctx context.Context, ref AgentRef, sandbox string, s Spec) (*Backend, error) {
	p, err := c.waitAgentPod(ctx, ref, sandbox, s.startTimeout())
	if err != nil {
		return nil, err
	}
	root := p.Annotations[AnnotationRoot]
	if root == "" {
		return nil, fmt.Errorf("pod %s/%s of %s has no %s annotation: its template was not made by this provider", ref.Namespace, sandbox, ref, AnnotationRoot)
	}
	b := c.Open(ref.Namespace, sandbox, root)
	if err := b.InitRoot(ctx); err != nil {
		return nil, err
	}
	if err := b.Chmod(ctx, ".", 0o755); err != nil {
		return nil, err
	}
	if err := b.Provision(ctx, s.Users, s.Groups); err != nil {
		return nil, err
	}
	return b, nil
}

// waitAgentPod waits until the pod of the Sandbox sandbox exists and its
// workspace container runs. A pod that failed, or a final waiting reason,
// fails at once; at the timeout the error gives the pod's reason and
// events, or, with no pod yet, what the Sandbox says.
func (c *Cluster) waitAgentPod(ctx context.Context, ref AgentRef, sandbox string, timeout time.Duration) (*corev1.Pod, error) {
	cs, _, err := c.client()
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(timeout)
	for delay := 50 * time.Millisecond; ; delay = min(delay*2, time.Second) {
		var p *corev1.Pod
		err := call(ctx, func() error {
			var gerr error
			p, gerr = cs.CoreV1().Pods(ref.Namespace).Get(ctx, sandbox, metav1.GetOptions{})
			return gerr
		})
		switch {
		case apierrors.IsNotFound(err):
			p = nil
		case err != nil:
			return nil, fmt.Errorf("reading pod %s/%s: %w", ref.Namespace, sandbox, err)
		case containerRunning(p) && p.DeletionTimestamp == nil:
			return p, nil
		case p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded:
			return nil, fmt.Errorf("pod %s/%s of %s stopped before it was ready (%s): %s%s", ref.Namespace, sandbox, ref,
				p.Status.Phase, podReason(p), c.events(ctx, ref.Namespace, sandbox))
		case finalReasons[waitingReason(p)]:
			return nil, fmt.Errorf("pod %s/%s of %s cannot start: %s%s", ref.Namespace, sandbox, ref, podReason(p), c.events(ctx, ref.Namespace, sandbox))
		}
		if time.Now().After(deadline) {
			if p != nil {
				return nil, fmt.Errorf("pod %s/%s of %s did not start within %s: %s%s", ref.Namespace, sandbox, ref, timeout,
					podReason(p), c.events(ctx, ref.Namespace, sandbox))
			}
			why := "the Sandbox cannot be read"
			if u, found, err := c.getObject(ctx, SandboxResource, ref.Namespace, sandbox); err == nil && found {
				if st, err := ReadSandbox(u); err == nil {
					why = orNone(st.Ready)
				}
			}
			return nil, fmt.Errorf("Sandbox %s/%s has no pod after %s (%s); is the agent-sandbox controller running?", ref.Namespace,
				sandbox, timeout, why)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(delay):
		}
	}
}
