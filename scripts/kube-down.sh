#!/usr/bin/env bash
# kube-down.sh: tear down what scripts/kube-up.sh brought up (`make
# kube-down`; `make test-kubernetes` runs it whatever the tests did). Safe to
# run any number of times, with or without a cluster.
#
# Stops the components, kills the pods' containers through the cluster's own
# containerd (and any process still in kubelet's kubepods cgroups), removes
# the pods' network namespaces, the bridge, kube-proxy's iptables chains and
# kube-up's FORWARD rules, unmounts everything under build/kube, restores the
# sysctls saved before kubelet and kube-proxy changed them, and removes the
# cluster's state (etcd data, containerd root and state, kubelet's
# directory). Kept for the next run: build/kube/bin, pki, images and logs.
# Exits non-zero when a process of the cluster is still alive at the end.
set -uo pipefail
# shellcheck source=scripts/kube-lib.sh
source "$(dirname "$0")/kube-lib.sh"

left=
# alive <pid>: the process exists and is not a zombie (which an init that
# does not reap leaves behind; it holds nothing).
alive() {
	[ -d "/proc/$1" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

# stop <component>: SIGTERM, up to 15 s, then SIGKILL and up to 15 s more
# (a large process such as kube-apiserver takes seconds to release its
# memory after SIGKILL).
stop() {
	local pid i
	pid=$(pid_of "$1")
	[ -n "$pid" ] || { rm -f "$RUN/$1.pid"; return 0; }
	kill "$pid" 2>/dev/null
	for ((i = 0; i < 30; i++)); do
		alive "$pid" || break
		sleep 0.5
	done
	if alive "$pid"; then
		kill -9 "$pid" 2>/dev/null
		for ((i = 0; i < 30; i++)); do
			alive "$pid" || break
			sleep 0.5
		done
	fi
	alive "$pid" && left+=" $1 (pid $pid)"
	rm -f "$RUN/$1.pid"
	say "stopped $1 (pid $pid)"
}

# remove_containers: kill every task of the cluster's containerd, note the
# pods' network namespaces, and delete the containers.
netns=()
remove_containers() {
	[ -n "$(pid_of containerd)" ] || return 0
	local id ns
	for id in $(ctr_ tasks ls -q 2>/dev/null); do
		ctr_ tasks kill -s SIGKILL "$id" >/dev/null 2>&1
	done
	sleep 1
	for id in $(ctr_ containers ls -q 2>/dev/null); do
		for ns in $(ctr_ containers info "$id" 2>/dev/null | grep -o '/var/run/netns/cni-[0-9a-f-]*' | sort -u); do
			netns+=("$ns")
		done
		ctr_ tasks delete -f "$id" >/dev/null 2>&1
		ctr_ containers delete "$id" >/dev/null 2>&1
	done
}

# kill_pod_processes: whatever still runs in a kubepods cgroup (a container
# whose shim died), then the shims of this containerd.
kill_pod_processes() {
	local pids
	pids=$(cat /sys/fs/cgroup/pids/kubepods/cgroup.procs /sys/fs/cgroup/pids/kubepods/*/cgroup.procs \
		/sys/fs/cgroup/pids/kubepods/*/*/cgroup.procs /sys/fs/cgroup/pids/kubepods/*/*/*/cgroup.procs 2>/dev/null | sort -u)
	pids+=" $(pgrep -f -- "-address $CTRD_SOCK" || true)"
	for pid in $pids; do kill -9 "$pid" 2>/dev/null; done
	[ -z "${pids// /}" ] || sleep 1
}

# unmount_under <dir>: every mount point at or below dir, deepest first.
unmount_under() {
	local m
	awk -v d="$1" '$5 == d || index($5, d "/") == 1 {print $5}' /proc/self/mountinfo | sort -r | while read -r m; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || say "could not unmount $m"
	done
}

restore_sysctls() {
	[ -f "$SYSCTL_SAVED" ] || return 0
	local line
	while read -r line; do
		sysctl -q -w "$line" >/dev/null 2>&1 || say "could not restore $line"
	done <"$SYSCTL_SAVED"
	rm -f "$SYSCTL_SAVED"
	say "restored the sysctls saved by kube-up.sh"
}

[ -d "$KUBE" ] || exit 0
for c in agent-sandbox-controller kube-proxy kube-scheduler kube-controller-manager kubelet; do stop "$c"; done
remove_containers
stop containerd
kill_pod_processes
for c in kube-apiserver etcd; do stop "$c"; done

if command -v iptables >/dev/null 2>&1; then
	[ -x "$KBIN/kube-proxy" ] && timeout 60 "$KBIN/kube-proxy" --cleanup >>"$LOGS/kube-proxy-cleanup.log" 2>&1
	# kube-proxy --cleanup empties its copy of KUBE-FIREWALL but leaves the
	# chain and the jumps to it.
	for ipt in iptables ip6tables; do
		[ "$($ipt -S KUBE-FIREWALL 2>/dev/null | wc -l)" = 1 ] || continue
		for chain in INPUT OUTPUT; do
			while $ipt -D "$chain" -j KUBE-FIREWALL 2>/dev/null; do :; done
		done
		$ipt -X KUBE-FIREWALL
	done
	while iptables -S FORWARD 2>/dev/null | grep -q -- "--comment $IPT_COMMENT"; do
		rule=$(iptables -S FORWARD | grep -m1 -- "--comment $IPT_COMMENT" | sed 's/^-A /-D /')
		# shellcheck disable=SC2086 # the rule is words, as iptables -S wrote them
		iptables $rule || break
	done
fi
for ns in "${netns[@]}"; do
	umount "$ns" 2>/dev/null
	rm -f "$ns"
done
ip link show "$BRIDGE" >/dev/null 2>&1 && ip link delete "$BRIDGE"
unmount_under "$KUBE"
for d in /sys/fs/cgroup/*/kubepods; do
	[ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
done
restore_sysctls
rm -rf "$KUBE/etcd" "$CTRD/root" "$CTRD/state" "$CTRD/opt" "$KUBELET_ROOT" "$KUBE/cni/ipam" "$RUN"

left+=$(pgrep -f -- "$CTRD_SOCK" | sed 's/^/ pid /' | tr -d '\n' || true)
if [ -n "$left" ]; then
	say "still running:$left"
	exit 1
fi
say "cluster down"
