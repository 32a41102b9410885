# shellcheck shell=bash disable=SC2034 # the variables are used by the scripts that source this
# kube-lib.sh: what scripts/kube-up.sh and scripts/kube-down.sh share: the
# layout of the test cluster under build/kube, its ports, and helpers.
# Sourced, not run.

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

KUBE=${KUBE_DIR:-$PWD/build/kube}
KBIN=$KUBE/bin
PKI=$KUBE/pki
LOGS=$KUBE/logs
RUN=$KUBE/run
CTRD=$KUBE/containerd
CTRD_SOCK=$CTRD/containerd.sock
KUBELET_ROOT=$KUBE/kubelet
ADMIN_KUBECONFIG=$KUBE/kubeconfig

# Everything listens on 127.0.0.1. etcd is kept off its usual ports so that
# it cannot meet an etcd this machine runs for something else.
ETCD_URL=http://127.0.0.1:12379
ETCD_PEER_URL=http://127.0.0.1:12380
APISERVER=https://127.0.0.1:6443
NODE_NAME=127.0.0.1
# The pods' bridge, their subnet (host-local IPAM) and the services' range.
BRIDGE=kube-br0
POD_CIDR=10.244.0.0/24
SERVICE_CIDR=10.96.0.0/24

# The images imported into containerd (nothing is pulled): the pod sandbox
# and a static busybox, for the tests' pods.
PAUSE_IMAGE=localhost/sandbox-test/pause:1
BUSYBOX_IMAGE=localhost/sandbox-test/busybox:1
WORKSPACE_IMAGE=sandbox-test/busybox:latest

# The sysctls that kubelet (setupKernelTunables) and kube-proxy may change.
# kube-up.sh saves them before it starts anything; kube-down.sh restores them.
SYSCTLS=(vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops
	kernel.keys.root_maxkeys kernel.keys.root_maxbytes net.ipv4.ip_forward
	net.ipv4.conf.all.route_localnet net.bridge.bridge-nf-call-iptables)
SYSCTL_SAVED=$KUBE/sysctl.saved

# The processes, in start order; each has run/<name>.pid.
COMPONENTS=(etcd containerd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy
	agent-sandbox-controller)

# The CRDs of the agent-sandbox controller's module (make kube-bins copies them).
AGENT_SANDBOX_CRDS=$KUBE/agent-sandbox-crds

# A comment on the iptables rules kube-up.sh adds, so kube-down.sh removes
# exactly those.
IPT_COMMENT=sandbox-test-kube

say() { echo "$(basename "$0" .sh): $*" >&2; }

ctr_() { ctr --address "$CTRD_SOCK" --namespace k8s.io "$@"; }

# pid_of <component>: the pid in run/<name>.pid when that process still runs
# the component's program; nothing otherwise.
pid_of() {
	local f=$RUN/$1.pid pid
	[ -f "$f" ] || return 0
	pid=$(cat "$f")
	[ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 0
	tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$1" && echo "$pid"
	return 0
}

# api <curl args...>: a request to the API server as the cluster's admin.
api() {
	curl -sS -A kube-up --cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key" "$@"
}
