package kubernetes

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/incontainer"
)

// Kind is the value returned by Backend.Kind.
const Kind = "kubernetes"

// Labels and annotations the provider puts on its pods and Services.
const (
	LabelWorkspaceID = "sandbox.workspace_id"
	LabelManagedBy   = "app.kubernetes.io/managed-by"
	ManagedBy        = "terraform-provider-sandbox"
	AnnotationRoot   = "sandbox.root"
	containerName    = "workspace"
)

// DefaultStartTimeout bounds how long Create waits for the pod to run.
const DefaultStartTimeout = 3 * time.Minute

// Spec is what Create makes a pod from: the declared workspace and the id
// the engine gave it.
type Spec struct {
	spec.Kubernetes
	// WorkspaceID is the workspace UUID the pod is labelled with; the pod
	// and its Service are named PodName(WorkspaceID).
	WorkspaceID string
}

// PodName is the name of the pod (and Service) of a workspace UUID.
func PodName(workspaceID string) string { return "sandbox-" + workspaceID }

func (s Spec) labels() map[string]string {
	l := map[string]string{}
	for k, v := range s.Labels {
		l[k] = v
	}
	l[LabelWorkspaceID] = s.WorkspaceID
	l[LabelManagedBy] = ManagedBy
	return l
}

// pod is the pod of s; the helper of digest is to be installed into its
// protected helper volume (see helper.go).
func (s Spec) pod(digest string) (*corev1.Pod, error) {
	t, err := s.podTemplate(digest)
	if err != nil {
		return nil, err
	}
	t.Name, t.Namespace = PodName(s.WorkspaceID), s.Namespace
	return &corev1.Pod{ObjectMeta: t.ObjectMeta, Spec: t.Spec}, nil
}

// podTemplate is the pod of s without its name and namespace: its labels,
// annotations and spec. The pods the provider creates are made from it,
// and so are the pod templates of agent-sandbox objects, so that a pod the
// agent-sandbox controller creates serves a workspace like the provider's
// own: keep-alive workspace container, helper init container and volume,
// root and accounts annotations.
func (s Spec) podTemplate(digest string) (corev1.PodTemplateSpec, error) {
	req, err := resourceList(s.Requests)
	if err != nil {
		return corev1.PodTemplateSpec{}, err
	}
	lim, err := resourceList(s.Limits)
	if err != nil {
		return corev1.PodTemplateSpec{}, err
	}
	var env []corev1.EnvVar
	for k, v := range s.Environment {
		env = append(env, corev1.EnvVar{Name: k, Value: v})
	}
	sort.Slice(env, func(i, j int) bool { return env[i].Name < env[j].Name })
	var ports []corev1.ContainerPort
	for _, p := range s.ExposedPorts {
		ports = append(ports, corev1.ContainerPort{ContainerPort: int32(p), Protocol: corev1.ProtocolTCP}) //nolint:gosec // checked by Validate
	}
	c := corev1.Container{
		Name: containerName, Image: s.Image, ImagePullPolicy: corev1.PullPolicy(s.ImagePullPolicy),
		Command: []string{"tail"}, Args: []string{"-f", "/dev/null"},
		Env: env, Ports: ports, WorkingDir: s.Root,
		Resources: corev1.ResourceRequirements{Requests: req, Limits: lim},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "workspace", MountPath: s.Root},
			{Name: helperVolumeName, MountPath: fshelper.HelperDir, ReadOnly: true},
		},
	}
	if s.Privileged {
		t := true
		c.SecurityContext = &corev1.SecurityContext{Privileged: &t}
	}
	no, yes := false, true
	grace := int64(1)
	p := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{
			Labels:      s.labels(),
			Annotations: map[string]string{AnnotationRoot: s.Root, AnnotationHelper: digest},
		},
		Spec: corev1.PodSpec{
			InitContainers:                []corev1.Container{helperContainer(s.Image, s.ImagePullPolicy, digest)},
			Containers:                    []corev1.Container{c},
			RestartPolicy:                 corev1.RestartPolicyNever,
			ShareProcessNamespace:         &yes,
			ServiceAccountName:            s.ServiceAccount,
			AutomountServiceAccountToken:  &no,
			NodeSelector:                  s.NodeSelector,
			TerminationGracePeriodSeconds: &grace,
			Volumes: []corev1.Volume{
				{Name: "workspace", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
				{Name: helperVolumeName, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			},
		},
	}
	if a := s.accountsAnnotation(); a != "" {
		p.Annotations[AnnotationAccounts] = a
	}
	if s.Egress {
		p.Spec.InitContainers = append(p.Spec.InitContainers, egressContainer(s.Image, s.ImagePullPolicy))
	}
	if s.RuntimeClassName != "" {
		rc := s.RuntimeClassName
		p.Spec.RuntimeClassName = &rc
	}
	return p, nil
}

func (s Spec) service() *corev1.Service {
	var ports []corev1.ServicePort
	for _, p := range s.ExposedPorts {
		ports = append(ports, corev1.ServicePort{
			Name: fmt.Sprintf("tcp-%d", p), Port: int32(p), TargetPort: intstr.FromInt(p), Protocol: corev1.ProtocolTCP, //nolint:gosec // checked by Validate
		})
	}
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: PodName(s.WorkspaceID), Namespace: s.Namespace, Labels: s.labels()},
		Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeClusterIP, Ports: ports,
			Selector: map[string]string{LabelWorkspaceID: s.WorkspaceID},
		},
	}
}

// Create creates the pod (and the Service of its exposed ports), waits
// until it runs, creates the root and provisions users and groups. On any
// failure both are deleted again. A pod that does not run within the
// start timeout fails with its own reason and recent events.
func (c *Cluster) Create(ctx context.Context, s Spec) (*Backend, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	cs, _, err := c.client()
	if err != nil {
		return nil, err
	}
	h, err := incontainer.FindHelper()
	if err != nil {
		return nil, err
	}
	pod, err := s.pod(h.Digest)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			_ = c.Remove(context.WithoutCancel(ctx), s.Namespace, pod.Name)
		}
	}()
	now := time.Now()
	s.applyExpiry(pod, now)
	if pod.OwnerReferences, err = createExpiryJob(ctx, cs, s, now); err != nil {
		return nil, err
	}
	var created *corev1.Pod
	if err := call(ctx, func() error {
		var cerr error
		created, cerr = cs.CoreV1().Pods(s.Namespace).Create(ctx, pod, metav1.CreateOptions{})
		c.reads.Changed()
		return cerr
	}); err != nil {
		return nil, fmt.Errorf("creating pod %s/%s: %w", s.Namespace, pod.Name, err)
	}
	if len(s.ExposedPorts) > 0 {
		// The pod owns its Service: when the pod is deleted out of band,
		// the cluster's garbage collector deletes the Service with it.
		svc := s.service()
		svc.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: created.Name, UID: created.UID}}
		if err := call(ctx, func() error {
			_, err := cs.CoreV1().Services(s.Namespace).Create(ctx, svc, metav1.CreateOptions{})
			return err
		}); err != nil {
			return nil, fmt.Errorf("creating service %s/%s: %w", s.Namespace, pod.Name, err)
		}
	}
	timeout := s.StartTimeout
	if timeout <= 0 {
		timeout = DefaultStartTimeout
	}
	start := time.Now()
	if err := c.waitRunning(ctx, s.Namespace, pod.Name, timeout, helperRunning); err != nil {
		return nil, err
	}
	if err := c.installHelper(ctx, s.Namespace, pod.Name, h); err != nil {
		return nil, err
	}
	if err := c.waitRunning(ctx, s.Namespace, pod.Name, max(timeout-time.Since(start), 10*time.Second), containerRunning); err != nil {
		return nil, err
	}
	b := c.Open(s.Namespace, pod.Name, s.Root)
	if err := b.InitRoot(ctx); err != nil {
		return nil, err
	}
	// An emptyDir is created world-writable; the root is 0755, as in a
	// Docker workspace (root_owner then gives it to the agent).
	if err := b.Chmod(ctx, ".", 0o755); err != nil {
		return nil, err
	}
	if err := b.Provision(ctx, s.Users, s.Groups); err != nil {
		return nil, err
	}
	ok = true
	return b, nil
}

// Pod is what Lookup reports of a workspace pod.
type Pod struct {
	Namespace, Name, Root string
	// Running is true when the workspace container runs.
	Running bool
	// Gone is true when the pod ended (evicted, deleted while running,
	// its container exited): it can no longer serve the workspace.
	Gone bool
	// Reason says why a pod is Gone.
	Reason string
	// Image is the container's image.
	Image string
	// Expiry is what its annotations record.
	Expiry sandbox.Expiry
}

// Lookup reads the pod name in ns; found is false when there is none. It
// only reads.
func (c *Cluster) Lookup(ctx context.Context, ns, name string) (Pod, bool, error) {
	return c.lookup(ctx, ns, name, 0)
}

// LookupRecent is Lookup that may answer from a lookup of the same pod
// that finished less than backend.RecentRead ago, when this process has
// created or deleted no pod since (backend.SharedFresh): the open of a
// workspace for each of its entries.
func (c *Cluster) LookupRecent(ctx context.Context, ns, name string) (Pod, bool, error) {
	return c.lookup(ctx, ns, name, backend.RecentRead)
}

func (c *Cluster) lookup(ctx context.Context, ns, name string, maxAge time.Duration) (Pod, bool, error) {
	cs, _, err := c.client()
	if err != nil {
		return Pod{}, false, err
	}
	// Concurrent lookups of one pod (the refresh of a workspace's
	// entries) share one GET; the pod is only read.
	p, err := backend.SharedFresh(ctx, &c.reads, ns+"/"+name, maxAge, func(ctx context.Context) (*corev1.Pod, error) {
		var p *corev1.Pod
		err := call(ctx, func() error {
			var gerr error
			p, gerr = cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
			return gerr
		})
		return p, err
	})
	if apierrors.IsNotFound(err) {
		return Pod{}, false, nil
	}
	if err != nil {
		return Pod{}, false, fmt.Errorf("reading pod %s/%s: %w", ns, name, err)
	}
	out := Pod{Namespace: ns, Name: name, Root: p.Annotations[AnnotationRoot], Running: containerRunning(p), Expiry: expiryOf(p.Annotations)}
	for _, ct := range p.Spec.Containers {
		if ct.Name == containerName {
			out.Image = ct.Image
		}
	}
	if p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded {
		out.Gone, out.Reason = true, podReason(p)
	}
	return out, true, nil
}

// Remove deletes the pod and its Service and waits until both are gone;
// what is already gone is not an error.
func (c *Cluster) Remove(ctx context.Context, ns, name string) error {
	cs, _, err := c.client()
	if err != nil {
		return err
	}
	c.helpers.Forget(ns + "/" + name)
	grace := int64(0)
	fg := metav1.DeletePropagationForeground
	opts := metav1.DeleteOptions{GracePeriodSeconds: &grace, PropagationPolicy: &fg}
	for _, del := range []func() error{
		func() error { defer c.reads.Changed(); return cs.CoreV1().Pods(ns).Delete(ctx, name, opts) },
		func() error { return cs.CoreV1().Services(ns).Delete(ctx, name, opts) },
		func() error { return deleteExpiryJob(ctx, cs, ns, name, opts) },
	} {
		if err := call(ctx, del); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting %s/%s: %w", ns, name, err)
		}
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		_, perr := cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		_, serr := cs.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(perr) && apierrors.IsNotFound(serr) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pod %s/%s was deleted but is still there after 2 minutes", ns, name)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}
