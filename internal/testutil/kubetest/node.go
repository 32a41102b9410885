package kubetest

import (
	"net"
	"testing"

	"k8s.io/client-go/kubernetes"
)

// PodBridge is the bridge scripts/kube-up.sh puts the cluster's pods on;
// this machine's address on it is the pods' gateway.
const PodBridge = "kube-br0"

// HostAddress returns this machine's IPv4 address on the pods' bridge: a
// server a test listens on there is reachable from the test cluster's pods
// and from nowhere else. The bridge appears with the first pod: when it is
// missing, a pod is run in ns first.
func HostAddress(t testing.TB, cs kubernetes.Interface, ns string) string {
	t.Helper()
	ifc, err := net.InterfaceByName(PodBridge)
	if err != nil {
		RunPod(t, cs, ns, BusyboxPod("bridge-probe", nil))
		ifc, err = net.InterfaceByName(PodBridge)
	}
	if err != nil {
		t.Fatalf("the pods' bridge %s: %v (is the test cluster up?)", PodBridge, err)
	}
	addrs, err := ifc.Addrs()
	if err != nil {
		t.Fatalf("addresses of %s: %v", PodBridge, err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	t.Fatalf("%s has no IPv4 address", PodBridge)
	return ""
}
