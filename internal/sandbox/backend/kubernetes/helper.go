package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/incontainer"
)

// The file helper reaches a workspace pod on an emptyDir volume mounted
// read-only at fshelper.HelperDir in the workspace container: the agent,
// even root, cannot write to it, and cannot rename or remove the directory
// (a mount point); without CAP_SYS_ADMIN it cannot remount it either. The
// volume is filled when the pod is created, by an exec into the pod's init
// container helperContainerName, the only one that mounts it read-write.
// That container waits for the helper to appear and then exits before the
// workspace container starts, so no process of the pod ever holds the
// volume writable while the agent can run (the pod shares one process
// namespace, and a live process's /proc/PID/root would lead back to it).
// An init container that completed does not count against the pod's
// readiness, so a Service still reaches the workspace.
const (
	helperContainerName = "sandbox-fs-helper"
	helperVolumeName    = "sandbox-fs-helper"
	// AnnotationHelper records the digest of the helper installed into a
	// pod's protected helper volume.
	AnnotationHelper = "sandbox.fs_helper"
	// helperWaitSeconds bounds how long the helper container waits for the
	// helper to be installed before it exits anyway.
	helperWaitSeconds = 600
)

// helperResources are the helper container's fixed requests and limits,
// small and independent of the workspace container's.
func helperResources() corev1.ResourceRequirements {
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("16Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
	}
}

// helperContainer is the init container that fills the helper volume: same
// image as the workspace, no other volume, an unprivileged user without
// capabilities, a read-only root filesystem. It waits (at most
// helperWaitSeconds) until the helper of digest is in place, then exits.
func helperContainer(image, pullPolicy, digest string) corev1.Container {
	no, yes := false, true
	uid := int64(65534)
	final := path.Join(fshelper.HelperDir, digest, fshelper.HelperName)
	script := `n=0; while [ ! -e "$0" ]; do [ "$n" -ge ` + strconv.Itoa(helperWaitSeconds) + ` ] && exit 1; n=$((n+1)); sleep 1; done`
	return corev1.Container{
		Name: helperContainerName, Image: image, ImagePullPolicy: corev1.PullPolicy(pullPolicy),
		Command:      []string{"sh", "-c", script, final},
		Resources:    helperResources(),
		VolumeMounts: []corev1.VolumeMount{{Name: helperVolumeName, MountPath: fshelper.HelperDir}},
		SecurityContext: &corev1.SecurityContext{
			RunAsUser: &uid, RunAsGroup: &uid, RunAsNonRoot: &yes,
			AllowPrivilegeEscalation: &no, Privileged: &no, ReadOnlyRootFilesystem: &yes,
			Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		},
	}
}

// installHelper fills the helper volume of a new pod through its helper
// init container, which then exits and lets the workspace container start.
func (c *Cluster) installHelper(ctx context.Context, ns, name string, h incontainer.Helper) error {
	r := &podRunner{c: c, ns: ns, name: name, container: helperContainerName}
	if err := incontainer.InstallByShell(ctx, r, h); err != nil {
		return fmt.Errorf("copying the file helper into pod %s/%s: %w", ns, name, err)
	}
	return nil
}

// protectedHelper implements incontainer.Hooks.Protected: the helper's
// path on the volume mounted read-only at fshelper.HelperDir in the
// workspace container, as the pod's spec says. A pod whose workspace
// container mounts it read-write (created by an earlier provider version)
// gives "": its helper is installed as before and not protected from the
// agent. The digest is the one recorded at creation, which differs from
// h's after a provider upgrade: the older helper then serves as long as it
// speaks the same protocol. A pod the agent-sandbox controller made gets
// its helper from an ephemeral installer, added the first time it is
// needed (helper_ephemeral.go).
func (b *Backend) protectedHelper(ctx context.Context, h incontainer.Helper) (string, error) {
	p, err := b.get(ctx)
	if err != nil {
		return "", err
	}
	q, err := protectedPath(p)
	if err != nil || q == "" || !ephemeralDelivery(p) {
		return q, err
	}
	return b.c.ephemeralHelper(ctx, p, h)
}

// protectedPath reads the protected helper's path from a pod's spec.
func protectedPath(p *corev1.Pod) (string, error) {
	var ws *corev1.Container
	for i := range p.Spec.Containers {
		if p.Spec.Containers[i].Name == containerName {
			ws = &p.Spec.Containers[i]
		}
	}
	if ws == nil {
		return "", errors.New("the pod has no workspace container")
	}
	for _, m := range ws.VolumeMounts {
		if m.MountPath != fshelper.HelperDir {
			continue
		}
		if !m.ReadOnly {
			return "", nil
		}
		digest := p.Annotations[AnnotationHelper]
		if ephemeralDelivery(p) {
			digest = strings.Repeat("0", 16) // the installer's name says which (ephemeralHelper)
		}
		if !emptyDirVolume(p, m.Name) || m.SubPath != "" || m.SubPathExpr != "" || !isHexDigest(digest) {
			return "", fmt.Errorf("the file helper volume is not an emptyDir, or its digest annotation %s is missing or malformed: "+
				"its helper is not trusted; re-create the workspace", AnnotationHelper)
		}
		return path.Join(fshelper.HelperDir, digest, fshelper.HelperName), nil
	}
	return "", nil
}

func emptyDirVolume(p *corev1.Pod, name string) bool {
	for _, v := range p.Spec.Volumes {
		if v.Name == name {
			return v.EmptyDir != nil
		}
	}
	return false
}

func isHexDigest(s string) bool {
	if len(s) != 16 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
