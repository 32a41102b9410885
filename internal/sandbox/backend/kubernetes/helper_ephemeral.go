package kubernetes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
		d, ok := installerDigest(st.Name)
		if ok && st.State.Terminated != nil && st.State.Terminated.ExitCode == 0 {
			done[d] = true
		}
	}
	if done[want] {
		return want
	}
	for _, c := range p.Spec.EphemeralContainers { // spec order: the first installed
		if d, _ := installerDigest(c.Name); done[d] {
			return d
		}
	}
	return ""
}

// maxInstallers bounds the installers of one helper in a pod: one that
// failed (a provider stopped while it waited) cannot be removed, so the
// next gets the suffix "-2", and so on.
const maxInstallers = 5

// installerName is the name of the n-th installer (from 1) of digest:
// "sandbox-fs-helper-<digest>", then "...-2" and on.
func installerName(digest string, n int) string {
	if n <= 1 {
		return installerPrefix + digest
	}
	return fmt.Sprintf("%s%s-%d", installerPrefix, digest, n)
}

// installerDigest reads the helper digest from an installer's name.
func installerDigest(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, installerPrefix)
	if !ok || len(rest) < 16 || !isHexDigest(rest[:16]) {
		return "", false
	}
	for n := 2; n <= maxInstallers && len(rest) > 16; n++ {
		if rest[16:] == fmt.Sprintf("-%d", n) {
			return rest[:16], true
		}
	}
	return rest[:16], len(rest) == 16
}

// nextInstaller picks the installer of digest to use in p: the first that
// is not in its spec yet (add it), or one that runs (another install, or
// one whose provider stopped, waits in it: install through it).
func nextInstaller(p *corev1.Pod, digest string) (name string, add bool, err error) {
	state := map[string]corev1.ContainerState{}
	for _, st := range p.Status.EphemeralContainerStatuses {
		state[st.Name] = st.State
	}
	inSpec := map[string]bool{}
	for _, c := range p.Spec.EphemeralContainers {
		inSpec[c.Name] = true
	}
	for n := 1; n <= maxInstallers; n++ {
		name := installerName(digest, n)
		st, seen := state[name]
		switch {
		case !inSpec[name]:
			return name, true, nil
		case !seen || st.Running != nil || st.Waiting != nil:
			return name, false, nil // starting or waiting for the helper
		}
	}
	return "", false, fmt.Errorf("pod %s/%s has %d failed installers of the file helper; re-create the workspace", p.Namespace, p.Name, maxInstallers)
}

// installerContainer is the ephemeral container that installs the helper
// of digest: the workspace image, the helper volume alone, an unprivileged
// user without capabilities, a read-only root filesystem (as the helper
// init container of the provider's own pods). It waits at most
// installerTimeout for the helper to appear, then exits.
func installerContainer(image, pullPolicy, digest string) corev1.EphemeralContainer {
	c := helperContainer(image, pullPolicy, digest)
	final := path.Join(fshelper.HelperDir, digest, fshelper.HelperName)
	// Polls every 0.1 s where sleep takes fractions (busybox, coreutils),
	// else every second: the provider waits for it to exit.
	script := `n=0; while [ ! -e "$0" ]; do [ "$n" -ge ` + fmt.Sprint(int(installerTimeout/time.Second)*10) +
		` ] && exit 1; n=$((n+1)); sleep 0.1 2>/dev/null || { sleep 1; n=$((n+9)); }; done`
	return corev1.EphemeralContainer{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
		Name: installerName(digest, 1), Image: c.Image, ImagePullPolicy: c.ImagePullPolicy,
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
	iname, add, err := nextInstaller(p, h.Digest)
	if err != nil {
		return err
	}
	inst.Name = iname
	if add {
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
	if err := c.waitPod(ctx, ns, name, installerTimeout, installerState(inst.Name, true)); err != nil {
		return err
	}
	r := &podRunner{c: c, ns: ns, name: name, container: inst.Name}
	if err := incontainer.InstallByShell(ctx, r, h); err != nil {
		return fmt.Errorf("copying the file helper into pod %s/%s: %w", ns, name, err)
	}
	if err := c.waitPod(ctx, ns, name, installerTimeout, installerState(inst.Name, false)); err != nil {
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

// waitPod polls the pod every 50 ms until ready says so: the installer's
// states change within a second, and every claim waits for them.
func (c *Cluster) waitPod(ctx context.Context, ns, name string, timeout time.Duration, ready func(*corev1.Pod) bool) error {
	cs, _, err := c.client()
	if err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	for {
		var p *corev1.Pod
		if err := call(ctx, func() error {
			var gerr error
			p, gerr = cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
			return gerr
		}); err != nil {
			return fmt.Errorf("reading pod %s/%s: %w", ns, name, err)
		}
		if ready(p) {
			return nil
		}
		if p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded || p.DeletionTimestamp != nil {
			return fmt.Errorf("pod %s/%s ended while its file helper was installed: %s", ns, name, podReason(p))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the file helper's installer in pod %s/%s did not run and exit within %s: %s%s", ns, name,
				timeout, podReason(p), c.events(ctx, ns, name))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// PrimeWarmPool installs the helper into every member of the warm pool
// ns/pool whose pod runs and has none yet, so that a claim that takes it
// has nothing to install. Members not yet claimed run nothing of an agent,
// which is what an install needs (see above). It returns how many it
// installed into; members that end meanwhile are skipped.
func (c *Cluster) PrimeWarmPool(ctx context.Context, ns, pool string) (int, error) {
	dc, err := c.dynamic()
	if err != nil {
		return 0, err
	}
	cs, _, err := c.client()
	if err != nil {
		return 0, err
	}
	h, err := incontainer.FindHelper()
	if err != nil {
		return 0, err
	}
	var list *unstructured.UnstructuredList
	if err := call(ctx, func() error {
		var lerr error
		list, lerr = dc.Resource(SandboxResource).Namespace(ns).List(ctx, metav1.ListOptions{})
		return lerr
	}); err != nil {
		return 0, agentErr(err, SandboxResource, "list", ns, "")
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		n    int
		errs []error
	)
	sem := make(chan struct{}, 8)
	for _, u := range list.Items {
		if !ownedByPool(u.GetOwnerReferences(), pool) || u.GetDeletionTimestamp() != nil {
			continue
		}
		name := u.GetName()
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			p, err := cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil || !containerRunning(p) || p.DeletionTimestamp != nil || !ephemeralDelivery(p) || installedDigest(p, h.Digest) != "" {
				return // not ready, gone, or primed already
			}
			_, err = c.ephemeralHelper(ctx, p, h)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			n++
		}()
	}
	wg.Wait()
	return n, errors.Join(errs...)
}

// ownedByPool reports whether refs name the SandboxWarmPool pool as
// controller: a member not yet claimed.
func ownedByPool(refs []metav1.OwnerReference, pool string) bool {
	for _, r := range refs {
		if r.Kind == KindSandboxWarmPool && r.Name == pool && r.Controller != nil && *r.Controller {
			return true
		}
	}
	return false
}
