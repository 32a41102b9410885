package kubernetes

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

const digestA, digestB = "0123456789abcdef", "fedcba9876543210"

// pod with ephemeral installers named in spec, and their states.
func installerPod(states map[string]corev1.ContainerState, names ...string) *corev1.Pod {
	p := &corev1.Pod{}
	p.Namespace, p.Name = "ns", "p"
	for _, n := range names {
		p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers, corev1.EphemeralContainer{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: n}})
		if st, ok := states[n]; ok {
			p.Status.EphemeralContainerStatuses = append(p.Status.EphemeralContainerStatuses, corev1.ContainerStatus{Name: n, State: st})
		}
	}
	return p
}

func exited(code int32) corev1.ContainerState {
	return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code}}
}

var running = corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}

// Only an installer that exited 0 counts, the wanted digest first, else
// the first installed; names that only look like installers do not.
func TestInstalledDigest(t *testing.T) {
	a1, a2, b1 := installerName(digestA, 1), installerName(digestA, 2), installerName(digestB, 1)
	cases := []struct {
		name string
		pod  *corev1.Pod
		want string
	}{
		{"none", installerPod(nil), ""},
		{"running", installerPod(map[string]corev1.ContainerState{a1: running}, a1), ""},
		{"failed", installerPod(map[string]corev1.ContainerState{a1: exited(1)}, a1), ""},
		{"done", installerPod(map[string]corev1.ContainerState{a1: exited(0)}, a1), digestA},
		{"second attempt", installerPod(map[string]corev1.ContainerState{a1: exited(1), a2: exited(0)}, a1, a2), digestA},
		{"wanted first", installerPod(map[string]corev1.ContainerState{b1: exited(0), a1: exited(0)}, b1, a1), digestA},
		{"older helper", installerPod(map[string]corev1.ContainerState{b1: exited(0)}, b1), digestB},
		{"lookalike", installerPod(map[string]corev1.ContainerState{a1 + "-x": exited(0), "sandbox-fs-helper-zz": exited(0)},
			a1+"-x", "sandbox-fs-helper-zz"), ""},
		{"suffix out of range", installerPod(map[string]corev1.ContainerState{a1 + "-9": exited(0)}, a1+"-9"), ""},
	}
	for _, c := range cases {
		if got := installedDigest(c.pod, digestA); got != c.want {
			t.Errorf("%s: installedDigest = %q, want %q", c.name, got, c.want)
		}
	}
}

// A failed installer cannot be removed: the next one gets a new name; a
// running one is reused; after maxInstallers failures it is an error.
func TestNextInstaller(t *testing.T) {
	a := func(n int) string { return installerName(digestA, n) }
	name, add, err := nextInstaller(installerPod(nil), digestA)
	if err != nil || name != a(1) || !add {
		t.Errorf("empty pod: %q %v %v", name, add, err)
	}
	name, add, err = nextInstaller(installerPod(map[string]corev1.ContainerState{a(1): running}, a(1)), digestA)
	if err != nil || name != a(1) || add {
		t.Errorf("running installer: %q %v %v, want it reused", name, add, err)
	}
	name, add, err = nextInstaller(installerPod(map[string]corev1.ContainerState{a(1): exited(1)}, a(1)), digestA)
	if err != nil || name != a(2) || !add {
		t.Errorf("failed installer: %q %v %v, want a second", name, add, err)
	}
	states := map[string]corev1.ContainerState{}
	var names []string
	for n := 1; n <= maxInstallers; n++ {
		states[a(n)] = exited(1)
		names = append(names, a(n))
	}
	if _, _, err := nextInstaller(installerPod(states, names...), digestA); err == nil || !strings.Contains(err.Error(), "failed installers") {
		t.Errorf("all failed: %v", err)
	}
	for n := 1; n <= maxInstallers; n++ {
		if d, ok := installerDigest(a(n)); !ok || d != digestA || len(a(n)) > 63 {
			t.Errorf("%s: digest %q %v (a container name is at most 63 characters)", a(n), d, ok)
		}
	}
}

// The installer is the helper init container's twin: unprivileged, no
// capabilities, read-only root, only the helper volume (writable).
func TestInstallerContainer(t *testing.T) {
	c := installerContainer("img", "Never", digestA)
	sc := c.SecurityContext
	if c.Name != installerName(digestA, 1) || c.Image != "img" || sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot ||
		sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil ||
		*sc.AllowPrivilegeEscalation || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" {
		t.Fatalf("installer %+v", c)
	}
	if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].Name != helperVolumeName || c.VolumeMounts[0].ReadOnly {
		t.Errorf("installer mounts %+v, want the helper volume alone, writable", c.VolumeMounts)
	}
	if !strings.Contains(strings.Join(c.Command, " "), digestA) {
		t.Errorf("installer waits for %v, not the helper of %s", c.Command, digestA)
	}
}
