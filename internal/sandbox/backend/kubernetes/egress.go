package kubernetes

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/incontainer"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/egress"
)

// The egress policy of a pod workspace is programmed into the pod's
// network namespace by the file helper, run in egressContainerName: a
// sidecar (an init container with restartPolicy Always) created with the
// pod when the workspace has an egress policy. It shares the pod's network
// namespace, holds CAP_NET_ADMIN and no other capability, mounts only the
// protected helper volume (read-only), and idles with `tail -f /dev/null`
// until the provider execs the helper in it to program, read back or
// remove the rules. The workspace container never gains the capability.
//
// Why a sidecar rather than the alternatives: an init container runs only
// once, before the workspace starts, so the rules could neither be read
// back on refresh (listing nftables needs CAP_NET_ADMIN too) nor put back
// after an out-of-band change, nor changed in place; an ephemeral
// container can be added to a running pod, but never removed again, so
// every refresh would leave one more in the pod's spec, and a plan would
// write to the cluster. The sidecar restarts on its own when something in
// the pod kills its process (the pod shares one process namespace); the
// rules are the kernel's and stay while it restarts. The agent, without
// CAP_SYS_PTRACE, cannot reach into its /proc entries.
const egressContainerName = "sandbox-egress"

// egressOutputLimit bounds the helper's answer (untrusted: it ran in the
// workspace's image and namespace).
const egressOutputLimit = 1 << 20

// egressContainer is the sidecar of a pod with an egress policy.
func egressContainer(image, pullPolicy string) corev1.Container {
	no, yes := false, true
	root := int64(0)
	always := corev1.ContainerRestartPolicyAlways
	return corev1.Container{
		Name: egressContainerName, Image: image, ImagePullPolicy: corev1.PullPolicy(pullPolicy),
		RestartPolicy: &always,
		Command:       []string{"tail"}, Args: []string{"-f", "/dev/null"},
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("16Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
		},
		VolumeMounts: []corev1.VolumeMount{{Name: helperVolumeName, MountPath: fshelper.HelperDir, ReadOnly: true}},
		SecurityContext: &corev1.SecurityContext{
			RunAsUser: &root, RunAsGroup: &root, RunAsNonRoot: &no,
			AllowPrivilegeEscalation: &no, Privileged: &no, ReadOnlyRootFilesystem: &yes,
			Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}, Add: []corev1.Capability{"NET_ADMIN"}},
		},
	}
}

// hasEgressContainer reports whether p was created with the egress
// sidecar.
func hasEgressContainer(p *corev1.Pod) bool {
	for _, c := range p.Spec.InitContainers {
		if c.Name == egressContainerName {
			return true
		}
	}
	return false
}

// isEgressContainer reports whether c is the egress sidecar the provider
// makes for the workspace container ws: same image, command, mount and
// capabilities.
func isEgressContainer(c, ws corev1.Container) bool {
	want := egressContainer(ws.Image, string(ws.ImagePullPolicy))
	return c.Name == want.Name && c.Image == want.Image && slices.Equal(c.Command, want.Command) && slices.Equal(c.Args, want.Args) &&
		c.RestartPolicy != nil && *c.RestartPolicy == *want.RestartPolicy &&
		len(c.VolumeMounts) == 1 && c.VolumeMounts[0].Name == helperVolumeName && c.VolumeMounts[0].MountPath == fshelper.HelperDir &&
		c.VolumeMounts[0].ReadOnly && c.VolumeMounts[0].SubPath == "" &&
		c.SecurityContext != nil && c.SecurityContext.Capabilities != nil &&
		slices.Equal(c.SecurityContext.Capabilities.Add, want.SecurityContext.Capabilities.Add)
}

func egressRunning(p *corev1.Pod) bool {
	for _, st := range p.Status.InitContainerStatuses {
		if st.Name == egressContainerName {
			return st.State.Running != nil
		}
	}
	return false
}

// ApplyEgress replaces the egress table in the pod's network namespace
// with prog and returns what is there afterwards.
func (b *Backend) ApplyEgress(ctx context.Context, prog egress.Program) (egress.Observed, error) {
	in, err := json.Marshal(prog)
	if err != nil {
		return egress.Observed{}, err
	}
	return b.egress(ctx, "apply", in)
}

// RemoveEgress deletes the egress table from the pod's network namespace.
func (b *Backend) RemoveEgress(ctx context.Context) error {
	_, err := b.egress(ctx, "remove", nil)
	return err
}

// ReadEgress returns what egress table the pod's network namespace holds.
// A pod created without the egress sidecar holds none the provider made.
func (b *Backend) ReadEgress(ctx context.Context) (egress.Observed, error) {
	p, err := b.get(ctx)
	if err != nil {
		return egress.Observed{}, err
	}
	if !hasEgressContainer(p) {
		return egress.Observed{}, nil
	}
	return b.egress(ctx, "list", nil)
}

// CanEnforceEgress reports whether the pod was created with the egress
// sidecar, without which a policy cannot be added in place (a pod's
// containers are fixed at creation).
func (b *Backend) CanEnforceEgress(ctx context.Context) (bool, error) {
	p, err := b.get(ctx)
	if err != nil {
		return false, err
	}
	return hasEgressContainer(p), nil
}

func (b *Backend) get(ctx context.Context) (*corev1.Pod, error) {
	cs, _, err := b.c.client()
	if err != nil {
		return nil, err
	}
	var p *corev1.Pod
	if err := call(ctx, func() error {
		var gerr error
		p, gerr = cs.CoreV1().Pods(b.ns).Get(ctx, b.name, metav1.GetOptions{})
		return gerr
	}); err != nil {
		if apierrors.IsNotFound(err) {
			// A suspended Sandbox has no pod: its entries keep their
			// state until it runs again (as a stopped container's).
			return nil, fmt.Errorf("pod %s/%s: %w: it does not exist", b.ns, b.name, backend.ErrStopped)
		}
		return nil, fmt.Errorf("reading pod %s/%s: %w", b.ns, b.name, err)
	}
	return p, nil
}

// egress runs the file helper's egress operation sub in the pod's egress
// sidecar.
func (b *Backend) egress(ctx context.Context, sub string, stdin []byte) (egress.Observed, error) {
	p, err := b.get(ctx)
	if err != nil {
		return egress.Observed{}, err
	}
	if !hasEgressContainer(p) {
		return egress.Observed{}, fmt.Errorf("pod %s/%s was created without an egress policy: it has no container that may "+
			"program one; re-create the workspace to give it an egress policy", b.ns, b.name)
	}
	if !egressRunning(p) {
		return egress.Observed{}, fmt.Errorf("the egress container of pod %s/%s is not running (restarting after its process "+
			"ended?): %w", b.ns, b.name, backend.ErrStopped)
	}
	helper, err := protectedPath(p)
	if err != nil {
		return egress.Observed{}, err
	}
	if helper == "" {
		return egress.Observed{}, fmt.Errorf("pod %s/%s has no protected file helper", b.ns, b.name)
	}
	r := &podRunner{c: b.c, ns: b.ns, name: b.name, container: egressContainerName}
	proc := incontainer.Proc{Argv: []string{helper, fshelper.OpEgress, sub}, Limit: egressOutputLimit, Strict: true}
	if stdin != nil {
		proc.Stdin = bytes.NewReader(stdin)
	}
	res, err := r.Run(ctx, proc)
	if err != nil {
		return egress.Observed{}, fmt.Errorf("egress %s in the network namespace of pod %s/%s: %w", sub, b.ns, b.name, err)
	}
	if res.ExitCode != 0 {
		return egress.Observed{}, fmt.Errorf("egress %s in the network namespace of pod %s/%s failed (exit %d): %s", sub, b.ns, b.name,
			res.ExitCode, bytes.TrimSpace(res.Stderr))
	}
	var o egress.Observed
	dec := json.NewDecoder(bytes.NewReader(res.Stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return egress.Observed{}, fmt.Errorf("egress %s in the network namespace of pod %s/%s: unreadable answer: %w", sub, b.ns, b.name, err)
	}
	if len(o.Comments) > egress.MaxNftRules+32 {
		return egress.Observed{}, errors.New("egress: too many rules in the answer")
	}
	return o, nil
}
