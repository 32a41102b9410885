package kubernetes

import (
	"errors"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"
)

// A pod with an egress policy gets a sidecar after the helper's init
// container that alone holds CAP_NET_ADMIN (and no other capability),
// restarts on its own, mounts only the helper volume read-only and runs as
// root; the workspace container gains nothing. Describe reads it back, a
// listing accepts the pod as the provider's, and a changed sidecar is
// refused.
func TestEgressSidecar(t *testing.T) {
	const id = "4b49acc3-5106-4ecd-ab16-792facb88144"
	s := Spec{WorkspaceID: id, Kubernetes: spec.Kubernetes{Namespace: "ns", Image: "busybox", Root: "/workspace", Egress: true}}
	p, err := s.pod("0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Spec.InitContainers) != 2 || p.Spec.InitContainers[0].Name != helperContainerName || p.Spec.InitContainers[1].Name != egressContainerName {
		t.Fatalf("init containers %v, want the helper's then the egress sidecar", names(p.Spec.InitContainers))
	}
	side := p.Spec.InitContainers[1]
	sc := side.SecurityContext
	switch {
	case side.RestartPolicy == nil || *side.RestartPolicy != corev1.ContainerRestartPolicyAlways:
		t.Error("the sidecar does not restart on its own")
	case sc == nil || sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Add, []corev1.Capability{"NET_ADMIN"}) ||
		!slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}):
		t.Errorf("sidecar capabilities %+v, want ALL dropped and NET_ADMIN only", sc)
	case *sc.RunAsUser != 0 || *sc.AllowPrivilegeEscalation || *sc.Privileged || !*sc.ReadOnlyRootFilesystem:
		t.Errorf("sidecar security context %+v", sc)
	case len(side.VolumeMounts) != 1 || side.VolumeMounts[0].MountPath != fshelper.HelperDir || !side.VolumeMounts[0].ReadOnly:
		t.Errorf("sidecar mounts %+v, want the helper volume read-only only", side.VolumeMounts)
	}
	for _, c := range p.Spec.Containers {
		if c.SecurityContext != nil && c.SecurityContext.Capabilities != nil && len(c.SecurityContext.Capabilities.Add) > 0 {
			t.Errorf("container %s adds capabilities %v", c.Name, c.SecurityContext.Capabilities.Add)
		}
	}
	if !describePod(p).Egress {
		t.Error("Describe does not read the egress sidecar back")
	}
	if why := notOwnPod(p); why != "" {
		t.Fatalf("a pod with the egress sidecar is refused: %s", why)
	}
	p.Spec.InitContainers[1].SecurityContext.Capabilities.Add = []corev1.Capability{"NET_ADMIN", "SYS_ADMIN"}
	if why := notOwnPod(p); !strings.Contains(why, egressContainerName) {
		t.Errorf("a sidecar with another capability: refusal %q, want it named", why)
	}

	without, err := Spec{WorkspaceID: id, Kubernetes: spec.Kubernetes{Namespace: "ns", Image: "busybox", Root: "/workspace"}}.pod("0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	if len(without.Spec.InitContainers) != 1 || describePod(without).Egress {
		t.Errorf("a pod without egress has init containers %v", names(without.Spec.InitContainers))
	}

	s.Privileged = true
	var fe *spec.KubernetesFieldError
	if err := s.Validate(); !errors.As(err, &fe) || fe.Field != "privileged" {
		t.Errorf("egress with privileged: %v, want a refusal of privileged", err)
	}
}

func names(cs []corev1.Container) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}
