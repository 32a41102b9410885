package kubernetes

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/incontainer"
)

// Pods the agent-sandbox controller creates (a Sandbox's, a warm pool's)
// cannot wait for the provider in an init container: a warm pool's pods
// must become ready with nobody there, and a Sandbox's pod is created again
// by its controller on resume. Their helper volume (an emptyDir, read-only
// in the workspace container, as in the provider's own pods) is filled
// instead by an ephemeral container added to the running pod the first
// time the provider uses it: "sandbox-fs-helper-<digest>", the only
// container that mounts the volume read-write, receives the helper by exec
// and exits. Its name records which helper it installed; the pod's spec,
// which no process in the pod can change, is what the provider trusts.
//
// Until the helper is installed the provider runs nothing in the pod, so
// while the installer holds the volume writable no process of the agent
// exists that could reach it through /proc; after it exits, nothing in the
// pod can write the volume. A pod has at most one installer per helper
// digest: an ephemeral container cannot be removed, and none is added by a
// plan or a refresh of a pod that has its helper.
const (
	// AnnotationHelperDelivery marks a pod template whose helper is
	// installed by an ephemeral container (HelperDeliveryEphemeral).
	AnnotationHelperDelivery = "sandbox.fs_helper_delivery"
	HelperDeliveryEphemeral  = "ephemeral-container"
	installerPrefix          = helperContainerName + "-"
	installerTimeout         = 2 * time.Minute
)

// ephemeralDelivery reports whether p's helper comes from an ephemeral
// installer (see above).
func ephemeralDelivery(p *corev1.Pod) bool {
	return p.Annotations[AnnotationHelperDelivery] == HelperDeliveryEphemeral
}

// installedDigest returns the digest of a helper an installer of p put in
// place (want's when there are several), or "".
func installedDigest(p *corev1.Pod, want string) string {
	done := map[string]bool{}
	for _, st := range p.Status.EphemeralContainerStatuses {
		d, ok := strings.CutPrefix(st.Name, installerPrefix)
		if ok && isHexDigest(d) && st.State.Terminated != nil && st.State.Terminated.ExitCode == 0 {
			done[d] = true
		}
	}
	if done[want] {
		return want
	}
	for _, c := range p.Spec.EphemeralContainers { // spec order: the first installed
		if d := strings.TrimPrefix(c.Name, installerPrefix); done[d] {
			return d
		}
	}
	return ""
}

// installerContainer is the ephemeral container that installs the helper
// of digest: the workspace image, the helper volume alone, an unprivileged
// user without capabilities, a read-only root filesystem (as the helper
// init container of the provider's own pods). It waits at most
// installerTimeout for the helper to appear, then exits.
func installerContainer(image, pullPolicy, digest string) corev1.EphemeralContainer {
	c := helperContainer(image, pullPolicy, digest)
	final := path.Join(fshelper.HelperDir, digest, fshelper.HelperName)
	script := `n=0; while [ ! -e "$0" ]; do [ "$n" -ge ` + fmt.Sprint(int(installerTimeout/time.Second)) + ` ] && exit 1; n=$((n+1)); sleep 1; done`
	return corev1.EphemeralContainer{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
		Name: installerPrefix + digest, Image: c.Image, ImagePullPolicy: c.ImagePullPolicy,
		Command: []string{"sh", "-c", script, final}, VolumeMounts: c.VolumeMounts, SecurityContext: c.SecurityContext,
	}}
}

// ephemeralHelper returns the path of the helper of pod ns/name, installing
// h first when no installer has run (concurrent callers share one install).
func (c *Cluster) ephemeralHelper(ctx context.Context, p *corev1.Pod, h incontainer.Helper) (string, error) {
	if d := installedDigest(p, h.Digest); d != "" {
		return path.Join(fshelper.HelperDir, d, fshelper.HelperName), nil
	}
	key := p.Namespace + "/" + p.Name
	_, err, _ := c.installs.Do(key, func() (any, error) { return nil, c.installEphemeral(ctx, p, h) })
	if err != nil {
		return "", err
	}
	return path.Join(fshelper.HelperDir, h.Digest, fshelper.HelperName), nil
}

// installEphemeral adds the installer of h to the pod p (unless it is
// there already), copies the helper in through it and waits until it
// exited 0.
func (c *Cluster) installEphemeral(ctx context.Context, p *corev1.Pod, h incontainer.Helper) error {
	cs, _, err := c.client()
	if err != nil {
		return err
	}
	ns, name := p.Namespace, p.Name
	image, pull := "", ""
	for _, ct := range p.Spec.Containers {
		if ct.Name == containerName {
			image, pull = ct.Image, string(ct.ImagePullPolicy)
		}
	}
	if image == "" {
		return fmt.Errorf("pod %s/%s has no %s container", ns, name, containerName)
	}
	inst := installerContainer(image, pull, h.Digest)
	present := false
	for _, ec := range p.Spec.EphemeralContainers {
		present = present || ec.Name == inst.Name
	}
	if !present {
		patch, err := json.Marshal(map[string]any{"spec": map[string]any{"ephemeralContainers": []corev1.EphemeralContainer{inst}}})
		if err != nil {
			return err
		}
		err = call(ctx, func() error {
			_, perr := cs.CoreV1().Pods(ns).Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "ephemeralcontainers")
			return perr
		})
		if err != nil && !apierrors.IsInvalid(err) { // Invalid: added meanwhile by another process
			msg := err.Error()
			if apierrors.IsForbidden(err) {
				msg += " (the provider needs patch on pods/ephemeralcontainers in namespace " + ns + ")"
			}
			return fmt.Errorf("adding the file helper's installer to pod %s/%s: %s", ns, name, msg)
		}
	}
	c.reads.Changed()
	if err := c.waitRunning(ctx, ns, name, installerTimeout, installerState(inst.Name, true)); err != nil {
		return err
	}
	r := &podRunner{c: c, ns: ns, name: name, container: inst.Name}
	if err := incontainer.InstallByShell(ctx, r, h); err != nil {
		return fmt.Errorf("copying the file helper into pod %s/%s: %w", ns, name, err)
	}
	if err := c.waitRunning(ctx, ns, name, installerTimeout, installerState(inst.Name, false)); err != nil {
		return err
	}
	c.reads.Changed()
	var after *corev1.Pod
	if err := call(ctx, func() error {
		var gerr error
		after, gerr = cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		return gerr
	}); err != nil {
		return fmt.Errorf("reading pod %s/%s: %w", ns, name, err)
	}
	if installedDigest(after, h.Digest) != h.Digest {
		return fmt.Errorf("the file helper's installer in pod %s/%s did not finish: %s", ns, name, installerOutcome(after, inst.Name))
	}
	return nil
}

// installerOutcome describes how the installer name ended.
func installerOutcome(p *corev1.Pod, name string) string {
	for _, st := range p.Status.EphemeralContainerStatuses {
		if st.Name == name && st.State.Terminated != nil {
			t := st.State.Terminated
			return fmt.Sprintf("exited with code %d (%s) %s", t.ExitCode, t.Reason, strings.TrimSpace(t.Message))
		}
	}
	return "no exit status"
}

// installerState is a waitRunning condition: the installer runs (running
// true; an installer that already exited counts too) or has exited.
func installerState(name string, running bool) func(*corev1.Pod) bool {
	return func(p *corev1.Pod) bool {
		for _, st := range p.Status.EphemeralContainerStatuses {
			if st.Name != name {
				continue
			}
			if running {
				return st.State.Running != nil || st.State.Terminated != nil
			}
			return st.State.Terminated != nil
		}
		return false
	}
}
