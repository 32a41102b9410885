package kubernetes

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
)

// The helper is trusted on a pod only when its spec mounts the helper
// emptyDir read-only in the workspace container and records the digest;
// a pod of an earlier version (read-write mount) keeps the old install
// path; anything else is refused.
func TestProtectedPath(t *testing.T) {
	s := Spec{WorkspaceID: "id", Kubernetes: spec.Kubernetes{Namespace: "ns", Image: "busybox", Root: "/workspace"}}
	p, err := s.pod("0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := protectedPath(p); err != nil || got != fshelper.HelperDir+"/0123456789abcdef/"+fshelper.HelperName {
		t.Fatalf("new pod: %q %v", got, err)
	}
	if len(p.Spec.Containers) != 1 || p.Spec.Containers[0].Name != containerName || len(p.Spec.InitContainers) != 1 ||
		p.Spec.InitContainers[0].Name != helperContainerName {
		t.Fatalf("containers %+v, init containers %+v", p.Spec.Containers, p.Spec.InitContainers)
	}
	for _, m := range p.Spec.InitContainers[0].VolumeMounts {
		if m.Name != helperVolumeName || m.ReadOnly {
			t.Fatalf("helper container mounts %+v", m)
		}
	}
	if sc := p.Spec.InitContainers[0].SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || *sc.AllowPrivilegeEscalation ||
		len(sc.Capabilities.Drop) != 1 || !*sc.ReadOnlyRootFilesystem {
		t.Fatalf("helper container security context %+v", sc)
	}

	old := p.DeepCopy()
	old.Spec.Containers[0].VolumeMounts[1].ReadOnly = false
	if got, err := protectedPath(old); err != nil || got != "" {
		t.Fatalf("pod of an earlier version: %q %v", got, err)
	}
	bad := p.DeepCopy()
	bad.Annotations[AnnotationHelper] = "../../bin"
	if _, err := protectedPath(bad); err == nil || !strings.Contains(err.Error(), "re-create") {
		t.Fatalf("malformed digest: %v", err)
	}
	host := p.DeepCopy()
	host.Spec.Volumes[1].VolumeSource = corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}
	if _, err := protectedPath(host); err == nil {
		t.Fatal("a hostPath helper volume is trusted")
	}
}
