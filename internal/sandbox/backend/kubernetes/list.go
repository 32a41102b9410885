package kubernetes

import (
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
)

// listExpiresAnnotation is the pod annotation holding a workspace's expiry
// (RFC 3339, UTC); List reports it when it parses.
const listExpiresAnnotation = "sandbox.expires_at"

// ListedPod is a workspace pod found by List.
type ListedPod struct {
	// UUID is its LabelWorkspaceID, Name its name (PodName(UUID)), Image
	// its workspace container's image and Root its AnnotationRoot.
	UUID, Name, Image, Root string
	// Labels are its labels without the provider's own.
	Labels map[string]string
	// Phase is its phase lower-cased: "pending", "running", "succeeded",
	// "failed" or "unknown".
	Phase string
	// Created is when it was created (RFC 3339, UTC); ExpiresAt its
	// listExpiresAnnotation, normalised to RFC 3339 UTC, or "" when it has
	// none or one that does not parse.
	Created, ExpiresAt string
}

// RefusedPod is a pod labelled as the provider's that List did not
// report, and why.
type RefusedPod struct {
	Name, Reason string
}

// List returns the workspace pods this provider created in namespace ns
// that carry every label of want, sorted by creation time, and the pods
// labelled LabelManagedBy=ManagedBy that fail the checks of notOwnPod.
// Pods being deleted are left out. It only reads.
func (c *Cluster) List(ctx context.Context, ns string, want map[string]string) ([]ListedPod, []RefusedPod, error) {
	cs, _, err := c.client()
	if err != nil {
		return nil, nil, err
	}
	sel := labels.Set{}
	for k, v := range want {
		sel[k] = v
	}
	sel[LabelManagedBy] = ManagedBy
	var pods []corev1.Pod
	err = call(ctx, func() error {
		list, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
		if err == nil {
			pods = list.Items
		}
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("listing pods in %s: %w", ns, err)
	}
	var (
		out     []ListedPod
		refused []RefusedPod
	)
	for i := range pods {
		p := &pods[i]
		if p.DeletionTimestamp != nil {
			continue
		}
		if why := notOwnPod(p); why != "" {
			refused = append(refused, RefusedPod{Name: p.Name, Reason: why})
			continue
		}
		out = append(out, listedPodOf(p))
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Created != out[j].Created {
			return out[i].Created < out[j].Created
		}
		return out[i].UUID < out[j].UUID
	})
	sort.Slice(refused, func(i, j int) bool { return refused[i].Name < refused[j].Name })
	return out, refused, nil
}

// notOwnPod says why p is not a workspace pod this provider created, or ""
// when it is one. Labels alone prove nothing (anyone can copy them onto a
// pod), so p must also be built as the provider builds its pods:
//
//   - its LabelWorkspaceID is a UUID in canonical form and its name is
//     PodName of it (names are unique in a namespace, so no copy shares it
//     with the workspace while that exists), and no controller owns it;
//   - its AnnotationRoot is an absolute clean path and its
//     AnnotationHelper a helper digest;
//   - its `workspace` container mounts the helper volume, an emptyDir,
//     read-only at fshelper.HelperDir (as protectedPath requires);
//   - its only init container is the helper container that installs the
//     helper of that digest: same name, the workspace's image, the same
//     command and a single read-write mount of the helper volume;
//   - it shares its process namespace and does not mount a service
//     account token.
func notOwnPod(p *corev1.Pod) string {
	id := p.Labels[LabelWorkspaceID]
	if u, err := uuid.Parse(id); err != nil || u.String() != id {
		return fmt.Sprintf("its label %s=%q is not a workspace UUID", LabelWorkspaceID, id)
	}
	if p.Name != PodName(id) {
		return fmt.Sprintf("its name is not %s, the name of the workspace it is labelled with", PodName(id))
	}
	if len(p.OwnerReferences) > 0 {
		return fmt.Sprintf("it is owned by %s %s; the provider's pods have no owner", p.OwnerReferences[0].Kind, p.OwnerReferences[0].Name)
	}
	if root := p.Annotations[AnnotationRoot]; !path.IsAbs(root) || path.Clean(root) != root {
		return fmt.Sprintf("its annotation %s=%q is not an absolute, clean path", AnnotationRoot, root)
	}
	digest := p.Annotations[AnnotationHelper]
	if !isHexDigest(digest) {
		return fmt.Sprintf("its annotation %s is not a file helper digest", AnnotationHelper)
	}
	helper, err := protectedPath(p)
	if err != nil || helper == "" {
		return fmt.Sprintf("its workspace container does not mount the file helper volume read-only at %s", fshelper.HelperDir)
	}
	var ws corev1.Container
	for _, ct := range p.Spec.Containers {
		if ct.Name == containerName {
			ws = ct
		}
	}
	if n := len(p.Spec.InitContainers); n < 1 || n > 2 || (n == 2 && !isEgressContainer(p.Spec.InitContainers[1], ws)) {
		return fmt.Sprintf("it does not have the provider's init container %s (and, with an egress policy, %s) only", helperContainerName, egressContainerName)
	}
	got, want := p.Spec.InitContainers[0], helperContainer(ws.Image, string(ws.ImagePullPolicy), digest)
	if got.Name != want.Name || got.Image != want.Image || !slices.Equal(got.Command, want.Command) || len(got.Args) != 0 ||
		len(got.VolumeMounts) != 1 || got.VolumeMounts[0].Name != helperVolumeName || got.VolumeMounts[0].MountPath != fshelper.HelperDir ||
		got.VolumeMounts[0].ReadOnly || got.VolumeMounts[0].SubPath != "" {
		return fmt.Sprintf("its init container is not the provider's %s installing the helper of its annotation %s", helperContainerName, AnnotationHelper)
	}
	if p.Spec.ShareProcessNamespace == nil || !*p.Spec.ShareProcessNamespace ||
		p.Spec.AutomountServiceAccountToken == nil || *p.Spec.AutomountServiceAccountToken {
		return "its pod spec does not share the process namespace or mounts a service account token, as the provider's pods never do"
	}
	return ""
}

func listedPodOf(p *corev1.Pod) ListedPod {
	l := ListedPod{
		UUID: p.Labels[LabelWorkspaceID], Name: p.Name, Root: p.Annotations[AnnotationRoot],
		Phase:   strings.ToLower(string(p.Status.Phase)),
		Created: p.CreationTimestamp.UTC().Format(time.RFC3339),
	}
	if l.Phase == "" {
		l.Phase = "pending"
	}
	if t, err := time.Parse(time.RFC3339Nano, p.Annotations[listExpiresAnnotation]); err == nil {
		l.ExpiresAt = t.UTC().Format(time.RFC3339)
	}
	for _, ct := range p.Spec.Containers {
		if ct.Name == containerName {
			l.Image = ct.Image
		}
	}
	for k, v := range p.Labels {
		if k == LabelWorkspaceID || k == LabelManagedBy {
			continue
		}
		if l.Labels == nil {
			l.Labels = map[string]string{}
		}
		l.Labels[k] = v
	}
	return l
}
