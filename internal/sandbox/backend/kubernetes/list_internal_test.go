package kubernetes

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A pod is the provider's only when it is built as the provider builds
// workspace pods; each difference a pod made by hand with the provider's
// labels would have is refused, naming it.
func TestNotOwnPod(t *testing.T) {
	const id = "4b49acc3-5106-4ecd-ab16-792facb88144"
	s := Spec{WorkspaceID: id, Kubernetes: spec.Kubernetes{Namespace: "ns", Image: "busybox", Root: "/workspace", Labels: map[string]string{"team": "evals"}}}
	own, err := s.pod("0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	if why := notOwnPod(own); why != "" {
		t.Fatalf("a pod created by the provider is refused: %s", why)
	}
	for name, c := range map[string]struct {
		edit func(*corev1.Pod)
		want string
	}{
		"another name":          {func(p *corev1.Pod) { p.Name = "copy" }, "its name is not sandbox-" + id},
		"workspace id not UUID": {func(p *corev1.Pod) { p.Labels[LabelWorkspaceID] = "ws" }, "not a workspace UUID"},
		"owned by a controller": {func(p *corev1.Pod) {
			p.OwnerReferences = []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "copies"}}
		}, "owned by ReplicaSet copies"},
		"no helper annotation": {func(p *corev1.Pod) { delete(p.Annotations, AnnotationHelper) }, "not a file helper digest"},
		"no init container":    {func(p *corev1.Pod) { p.Spec.InitContainers = nil }, "init container sandbox-fs-helper"},
		"init container runs something else": {func(p *corev1.Pod) {
			p.Spec.InitContainers[0].Command = []string{"sh", "-c", "sleep 1"}
		}, "is not the provider's sandbox-fs-helper"},
		"init container for another digest": {func(p *corev1.Pod) { p.Annotations[AnnotationHelper] = "fedcba9876543210" },
			"is not the provider's sandbox-fs-helper"},
		"helper volume writable in the workspace": {func(p *corev1.Pod) {
			p.Spec.Containers[0].VolumeMounts[1].ReadOnly = false
		}, "does not mount the file helper volume read-only"},
		"service account token mounted": {func(p *corev1.Pod) {
			yes := true
			p.Spec.AutomountServiceAccountToken = &yes
		}, "service account token"},
	} {
		t.Run(name, func(t *testing.T) {
			p := own.DeepCopy()
			c.edit(p)
			if got := notOwnPod(p); got == "" || !strings.Contains(got, c.want) {
				t.Fatalf("reason %q, want one saying %q", got, c.want)
			}
		})
	}
}
