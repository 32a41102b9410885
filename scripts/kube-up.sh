#!/usr/bin/env bash
# kube-up.sh: bring up a single-node Kubernetes on this machine for the
# Kubernetes tests (`make kube-up`, which builds the binaries first with
# `make kube-bins`), and write its admin kubeconfig to build/kube/kubeconfig.
# Nothing is pulled from a registry.
#
# * Debian's etcd-server, containerd, runc, containernetworking-plugins,
#   iptables and busybox-static are installed with apt-get when missing.
# * kube-apiserver, kube-controller-manager, kube-scheduler, kubelet and
#   kube-proxy come from build/kube/bin (tools/kubernetes/go.mod).
# * The agent-sandbox controller (kubernetes-sigs/agent-sandbox, extensions
#   on) runs as a host process with the admin kubeconfig, after its four
#   CRDs are installed from the module it is built from
#   (tools/agent-sandbox/go.mod; make kube-bins copies them).
# * A CA and the components' certificates (openssl, ECDSA) and the service
#   account key pair live in build/kube/pki and are kept between runs.
# * etcd, a containerd of its own (its own config, root, state and socket
#   under build/kube/containerd, apart from the one dockerd runs) and the
#   components run in the background, logs in build/kube/logs, pids in
#   build/kube/run. All of them listen on 127.0.0.1 only.
# * The pause and busybox images are docker-archive tars written here
#   (FROM scratch: a static pause built from internal/testutil/kubepause and
#   the static busybox) and imported with `ctr images import`.
# * Pods get a CNI bridge (kube-br0, 10.244.0.0/24); services 10.96.0.0/24,
#   served by kube-proxy (iptables, masquerade-all).
#
# Brings up a fresh cluster each time (kube-down.sh first when anything of an
# earlier one is left) and waits for the node Ready, the default service
# account and the kube-root-ca.crt config map. Under CI=true any failure
# exits non-zero; elsewhere too: the tests need the cluster it promised.
set -euo pipefail
# shellcheck source=scripts/kube-lib.sh
source "$(dirname "$0")/kube-lib.sh"

start_time=$(date +%s)

install_packages() {
	local want=()
	command -v etcd >/dev/null 2>&1 || want+=(etcd-server)
	command -v containerd >/dev/null 2>&1 || want+=(containerd)
	command -v ctr >/dev/null 2>&1 || want+=(containerd)
	command -v runc >/dev/null 2>&1 || want+=(runc)
	[ -x /usr/lib/cni/bridge ] || want+=(containernetworking-plugins)
	command -v iptables >/dev/null 2>&1 || want+=(iptables)
	command -v openssl >/dev/null 2>&1 || want+=(openssl)
	command -v curl >/dev/null 2>&1 || want+=(curl)
	[ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1 || want+=(busybox-static)
	[ ${#want[@]} -eq 0 ] && return 0
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
		say "missing ${want[*]}; install them (needs root and apt-get)"
		exit 1
	fi
	say "installing ${want[*]} with apt-get"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null
	apt-get install -y -qq --no-install-recommends "${want[@]}" >/dev/null
}

# cert <name> <subject> <extendedKeyUsage> [subjectAltName]: pki/<name>.{key,crt}
# signed by the CA, unless they exist.
cert() {
	local name=$1 subj=$2 eku=$3 san=${4:-}
	[ -s "$PKI/$name.crt" ] && return 0
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$PKI/$name.key" \
		-subj "$subj" -out "$PKI/$name.csr" 2>/dev/null
	{
		printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=%s\n' "$eku"
		[ -z "$san" ] || printf 'subjectAltName=%s\n' "$san"
	} >"$PKI/$name.ext"
	openssl x509 -req -in "$PKI/$name.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial \
		-days 3650 -extfile "$PKI/$name.ext" -out "$PKI/$name.crt" 2>/dev/null
	rm -f "$PKI/$name.csr" "$PKI/$name.ext"
}

make_pki() {
	mkdir -p "$PKI" && chmod 700 "$PKI"
	if [ ! -s "$PKI/ca.crt" ]; then
		openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
			-keyout "$PKI/ca.key" -out "$PKI/ca.crt" -subj "/CN=sandbox-test-kubernetes-ca" \
			-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
	fi
	[ -s "$PKI/sa.key" ] || openssl ecparam -name prime256v1 -genkey -noout -out "$PKI/sa.key"
	openssl ec -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
	cert apiserver "/CN=kube-apiserver" serverAuth \
		"IP:127.0.0.1,IP:${SERVICE_CIDR%.0/*}.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
	cert kubelet-serving "/CN=$NODE_NAME" serverAuth "IP:127.0.0.1,DNS:localhost"
	cert admin "/O=system:masters/CN=kubernetes-admin" clientAuth
	cert apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" clientAuth
	cert controller-manager "/CN=system:kube-controller-manager" clientAuth
	cert scheduler "/CN=system:kube-scheduler" clientAuth
	cert kubelet "/O=system:nodes/CN=system:node:$NODE_NAME" clientAuth
	cert kube-proxy "/CN=system:kube-proxy" clientAuth
}

# kubeconfig <file> <cert name>: a kubeconfig for 127.0.0.1:6443 with the
# certificates embedded, so that it can be copied anywhere on this machine.
kubeconfig() {
	cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: sandbox-test
  cluster:
    server: $APISERVER
    certificate-authority-data: $(base64 -w0 <"$PKI/ca.crt")
users:
- name: $2
  user:
    client-certificate-data: $(base64 -w0 <"$PKI/$2.crt")
    client-key-data: $(base64 -w0 <"$PKI/$2.key")
contexts:
- name: sandbox-test
  context: {cluster: sandbox-test, user: $2}
current-context: sandbox-test
EOF
	chmod 600 "$1"
}

# start <component> <program> <args...>: in the background, logging to
# logs/<component>.log; its pid in run/<component>.pid.
start() {
	local name=$1
	shift
	nohup "$@" >>"$LOGS/$name.log" 2>&1 </dev/null &
	echo $! >"$RUN/$name.pid"
}

# wait_for <what> <seconds> <command...>: poll every half second.
wait_for() {
	local what=$1 secs=$2 i
	shift 2
	for ((i = 0; i < secs * 2; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		for c in "${COMPONENTS[@]}"; do
			if [ -f "$RUN/$c.pid" ] && [ -z "$(pid_of "$c")" ]; then
				say "$c exited while waiting for $what; the end of $LOGS/$c.log:"
				tail -n 20 "$LOGS/$c.log" >&2 || true
				exit 1
			fi
		done
		sleep 0.5
	done
	say "$what did not happen within $secs s; see $LOGS"
	exit 1
}

# docker_archive <ref> <rootfs> <cmd json> <out.tar>: a one-layer image in
# the layout `docker save` writes, which `ctr images import` reads.
docker_archive() {
	local ref=$1 rootfs=$2 cmd=$3 out=$4 dir diff cfg
	dir=$(mktemp -d)
	tar -C "$rootfs" --numeric-owner --owner=0 --group=0 --sort=name --mtime=@0 -cf "$dir/layer.tar" .
	diff=$(sha256sum "$dir/layer.tar" | cut -d' ' -f1)
	mkdir "$dir/$diff" && mv "$dir/layer.tar" "$dir/$diff/layer.tar"
	printf '{"architecture":"%s","os":"linux","config":{"Env":["PATH=/usr/sbin:/usr/bin:/sbin:/bin"],"Cmd":%s},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
		"$(go env GOARCH)" "$cmd" "$diff" >"$dir/config.json"
	cfg=$(sha256sum "$dir/config.json" | cut -d' ' -f1).json
	mv "$dir/config.json" "$dir/$cfg"
	printf '[{"Config":"%s","RepoTags":["%s"],"Layers":["%s/layer.tar"]}]' "$cfg" "$ref" "$diff" >"$dir/manifest.json"
	tar -C "$dir" -cf "$out" manifest.json "$cfg" "$diff"
	rm -rf "$dir"
}

make_images() {
	local img=$KUBE/images root
	mkdir -p "$img"
	root=$(mktemp -d)
	CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$root/pause" ./internal/testutil/kubepause
	docker_archive "$PAUSE_IMAGE" "$root" '["/pause"]' "$img/pause.tar"
	rm -rf "$root" && root=$(mktemp -d)
	mkdir -p "$root"/{bin,etc,tmp,root,var/www}
	chmod 1777 "$root/tmp"
	cp /bin/busybox "$root/bin/busybox"
	for applet in $(/bin/busybox --list); do
		[ "$applet" = busybox ] || ln -s busybox "$root/bin/$applet"
	done
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$root/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
	docker_archive "$BUSYBOX_IMAGE" "$root" '["/bin/sh"]' "$img/busybox.tar"
	rm -rf "$root"
	ctr_ images import "$img/pause.tar" >/dev/null
	ctr_ images import "$img/busybox.tar" >/dev/null
	import_workspace_image "$img"
}

# import_workspace_image: workspace pods run the Docker tests' image
# (scripts/docker-up.sh builds it FROM scratch: busybox with every applet,
# the shadow account tools, httpd), so both backends are tested on the same
# image. It is saved from the Docker daemon and imported as
# docker.io/sandbox-test/busybox:latest.
import_workspace_image() {
	local img=$1
	if ! docker image inspect "$WORKSPACE_IMAGE" >/dev/null 2>&1; then
		say "the Docker test image $WORKSPACE_IMAGE is missing (run scripts/docker-up.sh, as make test-kubernetes does): workspace pods cannot start"
		[ "${CI:-}" = true ] && return 1
		return 0
	fi
	docker save "$WORKSPACE_IMAGE" -o "$img/workspace.tar"
	ctr_ images import "$img/workspace.tar" >/dev/null
}

write_configs() {
	mkdir -p "$CTRD/root" "$CTRD/state" "$KUBE/cni/net.d" "$KUBE/cni/ipam" "$KUBELET_ROOT"
	# containerd 1.6 config (version 2). root lacks CAP_SYS_RESOURCE in some
	# sandboxes, so containers may not lower their OOM score adjustment.
	cat >"$CTRD/config.toml" <<EOF
version = 2
root = "$CTRD/root"
state = "$CTRD/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]
[grpc]
  address = "$CTRD_SOCK"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "$CTRD/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$KUBE/cni/net.d"
EOF
	cat >"$KUBE/cni/net.d/10-sandbox-test.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "sandbox-test",
  "plugins": [
    {"type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": false, "hairpinMode": true,
     "ipam": {"type": "host-local", "dataDir": "$KUBE/cni/ipam", "ranges": [[{"subnet": "$POD_CIDR"}]],
              "routes": [{"dst": "0.0.0.0/0"}]}},
    {"type": "loopback"}
  ]
}
EOF
	cat >"$KUBE/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
# This machine's kernel mounts cgroup v1, which kubelet refuses by default.
failCgroupV1: false
# kube-proxy owns the iptables rules; kubelet leaves them alone.
makeIPTablesUtilChains: false
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://$CTRD_SOCK
address: 127.0.0.1
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
tlsCertFile: $PKI/kubelet-serving.crt
tlsPrivateKeyFile: $PKI/kubelet-serving.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: $PKI/ca.crt}
authorization: {mode: AlwaysAllow}
clusterDomain: cluster.local
failSwapOn: false
resolvConf: ""
# Imported images cannot be pulled again: never collect them, and evict
# nothing while the disk has room.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%"}
EOF
	cat >"$KUBE/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: $KUBE/kube-proxy.kubeconfig}
mode: iptables
hostnameOverride: $NODE_NAME
bindAddress: 127.0.0.1
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
clusterCIDR: $POD_CIDR
nodePortAddresses: ["$POD_CIDR"]
# Pods on one bridge reach a service through the node: masquerading every
# service packet brings the reply back through it as well.
iptables: {masqueradeAll: true, localhostNodePorts: false}
# Leave the machine's conntrack settings alone.
conntrack: {maxPerCore: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
EOF
	kubeconfig "$ADMIN_KUBECONFIG" admin
	for c in controller-manager scheduler kubelet kube-proxy; do
		kubeconfig "$KUBE/$c.kubeconfig" "$c"
	done
}

save_sysctls() {
	[ -f "$SYSCTL_SAVED" ] && return 0
	local k v
	for k in "${SYSCTLS[@]}"; do
		v=$(sysctl -n "$k" 2>/dev/null) && printf '%s=%s\n' "$k" "$v"
	done >"$SYSCTL_SAVED.tmp"
	mv "$SYSCTL_SAVED.tmp" "$SYSCTL_SAVED"
}

# dockerd sets the FORWARD policy to DROP; pods on the bridge talk to each
# other (bridge-nf-call-iptables) and to services through FORWARD.
allow_forward() {
	local dir
	for dir in -i -o; do
		iptables -C FORWARD "$dir" "$BRIDGE" -m comment --comment "$IPT_COMMENT" -j ACCEPT 2>/dev/null ||
			iptables -I FORWARD "$dir" "$BRIDGE" -m comment --comment "$IPT_COMMENT" -j ACCEPT
	done
}

crd_established() {
	api -f "$APISERVER/apis/apiextensions.k8s.io/v1/customresourcedefinitions/$1" |
		grep -q '"type":"Established","status":"True"'
}
controller_started() { grep -q 'Starting workers' "$LOGS/agent-sandbox-controller.log"; }

# install_agent_sandbox: the agent-sandbox CRDs (the YAML of the module
# version the controller is built from, sent as is: the API server takes
# YAML), then the controller as a host process with the admin kubeconfig,
# extensions on, no leader election and no metrics or probe listeners.
install_agent_sandbox() {
	local f name
	for f in "$AGENT_SANDBOX_CRDS"/*.yaml; do
		[ -f "$f" ] || { say "no CRDs in $AGENT_SANDBOX_CRDS: run make kube-bins"; exit 1; }
		api -f -o /dev/null -X POST -H 'Content-Type: application/yaml' --data-binary "@$f" \
			"$APISERVER/apis/apiextensions.k8s.io/v1/customresourcedefinitions" ||
			{ say "could not install the CRD in $f"; exit 1; }
	done
	for f in "$AGENT_SANDBOX_CRDS"/*.yaml; do
		name=$(basename "$f" .yaml)
		name=${name#*_}.${name%%_*}
		wait_for "CRD $name Established" 30 crd_established "$name"
	done
	start agent-sandbox-controller "$KBIN/agent-sandbox-controller" --kubeconfig="$ADMIN_KUBECONFIG" --extensions \
		--leader-elect=false --metrics-bind-address=0 --health-probe-bind-address=0
	wait_for "the agent-sandbox controller's workers" 60 controller_started
}

install_packages
for b in kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy agent-sandbox-controller; do
	[ -x "$KBIN/$b" ] || { say "$KBIN/$b is missing: run make kube-bins"; exit 1; }
done
left=
for c in "${COMPONENTS[@]}"; do [ -z "$(pid_of "$c")" ] || left=1; done
if [ -n "$left" ] || [ -f "$SYSCTL_SAVED" ]; then
	say "an earlier cluster is still (partly) up: tearing it down first"
	"$(dirname "$0")/kube-down.sh"
fi
mkdir -p "$LOGS" "$RUN"
rm -f "$LOGS"/*.log
make_pki
write_configs
save_sysctls
allow_forward

start etcd etcd --name sandbox-test --data-dir "$KUBE/etcd" --unsafe-no-fsync \
	--listen-client-urls "$ETCD_URL" --advertise-client-urls "$ETCD_URL" \
	--listen-peer-urls "$ETCD_PEER_URL" --initial-advertise-peer-urls "$ETCD_PEER_URL" \
	--initial-cluster "sandbox-test=$ETCD_PEER_URL" --listen-metrics-urls ""
start containerd containerd --config "$CTRD/config.toml"
wait_for "etcd health" 30 curl -fsS "$ETCD_URL/health"
wait_for "containerd" 30 ctr_ version

start kube-apiserver "$KBIN/kube-apiserver" --etcd-servers="$ETCD_URL" \
	--bind-address=127.0.0.1 --advertise-address=127.0.0.1 --endpoint-reconciler-type=none --secure-port=6443 \
	--tls-cert-file="$PKI/apiserver.crt" --tls-private-key-file="$PKI/apiserver.key" \
	--client-ca-file="$PKI/ca.crt" --service-cluster-ip-range="$SERVICE_CIDR" \
	--service-account-issuer=https://kubernetes.default.svc.cluster.local \
	--service-account-key-file="$PKI/sa.pub" --service-account-signing-key-file="$PKI/sa.key" \
	--authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction --allow-privileged=true \
	--kubelet-client-certificate="$PKI/apiserver-kubelet-client.crt" \
	--kubelet-client-key="$PKI/apiserver-kubelet-client.key" \
	--kubelet-preferred-address-types=InternalIP,Hostname --profiling=false
make_images
wait_for "the API server's /readyz" 60 api -f "$APISERVER/readyz"

# Without --use-service-account-credentials the root CA publisher never
# writes kube-root-ca.crt, and no pod with a service account token starts.
start kube-controller-manager "$KBIN/kube-controller-manager" --kubeconfig="$KUBE/controller-manager.kubeconfig" \
	--authentication-kubeconfig="$KUBE/controller-manager.kubeconfig" \
	--authorization-kubeconfig="$KUBE/controller-manager.kubeconfig" \
	--bind-address=127.0.0.1 --leader-elect=false --use-service-account-credentials=true \
	--root-ca-file="$PKI/ca.crt" --service-account-private-key-file="$PKI/sa.key" \
	--cluster-signing-cert-file="$PKI/ca.crt" --cluster-signing-key-file="$PKI/ca.key" --profiling=false
start kube-scheduler "$KBIN/kube-scheduler" --kubeconfig="$KUBE/scheduler.kubeconfig" \
	--authentication-kubeconfig="$KUBE/scheduler.kubeconfig" \
	--authorization-kubeconfig="$KUBE/scheduler.kubeconfig" \
	--bind-address=127.0.0.1 --leader-elect=false --profiling=false
start kubelet "$KBIN/kubelet" --config="$KUBE/kubelet.yaml" --kubeconfig="$KUBE/kubelet.kubeconfig" \
	--hostname-override="$NODE_NAME" --root-dir="$KUBELET_ROOT"
start kube-proxy "$KBIN/kube-proxy" --config="$KUBE/kube-proxy.yaml"

node_ready() { api "$APISERVER/api/v1/nodes/$NODE_NAME" | grep -q '"type":"Ready","status":"True"'; }
wait_for "node $NODE_NAME Ready" 120 node_ready
wait_for "the default service account" 60 api -f "$APISERVER/api/v1/namespaces/default/serviceaccounts/default"
wait_for "the kube-root-ca.crt config map" 60 api -f "$APISERVER/api/v1/namespaces/default/configmaps/kube-root-ca.crt"
install_agent_sandbox
say "cluster up in $(($(date +%s) - start_time)) s: KUBECONFIG=$ADMIN_KUBECONFIG (logs: $LOGS)"
