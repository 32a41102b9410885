#!/usr/bin/env bash
# bench-scale-kube.sh PROVIDER: pod workspaces at scale on the test cluster
# (which must be up: KUBECONFIG names it; make bench-scale-kube starts and
# stops it).
#
# N pod workspaces (SANDBOX_BENCH_PODS, default 100), each with 2 files (4
# KiB and 1 MiB, from host files), through `terraform -parallelism=20`
# with a provider started here: apply, a no-op plan, destroy. Each phase is
# timed against a kubectl loop doing the same work 20 at a time: `kubectl
# apply` of a pod like the provider's (emptyDir root, `tail -f /dev/null`,
# 1 s grace) + `kubectl wait` for Ready + 2 x `kubectl cp` (apply),
# `kubectl exec sha256sum` of what is there (plan: what a refresh reads
# back), `kubectl delete --wait` (destroy). Also: provider CPU per resource
# in the no-op plan and its peak resident memory. Rows go to $BENCH_TABLE.
set -euo pipefail
provider=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/.."
repo=$PWD
TF=${TERRAFORM:-terraform}
IMAGE=${SANDBOX_KUBE_IMAGE:-docker.io/sandbox-test/busybox:latest}
N=${SANDBOX_BENCH_PODS:-100}
P=20
BUILD=${BUILD:-$PWD/build}
KUBECTL=${KUBECTL:-$BUILD/kube/bin/kubectl}
: "${KUBECONFIG:?KUBECONFIG must name the test cluster (make bench-scale-kube starts it)}"
export KUBECONFIG
mkdir -p "$BUILD/bin" "$BUILD/bench"
CGO_ENABLED=0 go build -o "$BUILD/bin/sandbox-fs-helper" ./cmd/sandbox-fs-helper
export SANDBOX_FS_HELPER=$BUILD/bin/sandbox-fs-helper
. "$repo/scripts/bench-lib.sh"

work=$(mktemp -d "$BUILD/bench/scale-kube.XXXXXX")
ns_tf="sandbox-bench-tf-$$"
ns_cli="sandbox-bench-cli-$$"
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null || true
	"$KUBECTL" delete namespace "$ns_tf" "$ns_cli" --ignore-not-found --wait=false >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
"$KUBECTL" create namespace "$ns_tf" >/dev/null
"$KUBECTL" create namespace "$ns_cli" >/dev/null
# Pods need the namespace's default service account.
for ns in "$ns_tf" "$ns_cli"; do
	for _ in $(seq 100); do
		"$KUBECTL" -n "$ns" get serviceaccount default >/dev/null 2>&1 && break
		sleep 0.2
	done
done
export TF_CLI_CONFIG_FILE TF_IN_AUTOMATION=1
TF_CLI_CONFIG_FILE=$("$repo/scripts/dev-cli-config.sh" "$provider")
head -c 4096 /dev/urandom >"$work/a.txt"
head -c 1048576 /dev/urandom >"$work/b.bin"
cat >"$work/main.tf" <<HCL
terraform {
  required_providers {
    sandbox = { source = "agentsandbox/sandbox" }
  }
}
provider "sandbox" {
  kubernetes {
    config_path = "$KUBECONFIG"
  }
}
resource "sandbox_workspace" "w" {
  count = $N
  kubernetes {
    namespace         = "$ns_tf"
    image             = "$IMAGE"
    image_pull_policy = "Never"
  }
}
resource "sandbox_file" "a" {
  count        = $N
  workspace_id = sandbox_workspace.w[count.index].id
  path         = "a.txt"
  source       = "$work/a.txt"
}
resource "sandbox_file" "b" {
  count        = $N
  workspace_id = sandbox_workspace.w[count.index].id
  path         = "b.bin"
  source       = "$work/b.bin"
}
HCL

echo "== $N pod workspaces x 2 files, -parallelism=$P: terraform vs a kubectl loop, $P at a time"
terraform_phases "$work"

export IMAGE KUBECTL work ns_cli
one_up() {
	n="bench-$1"
	"$KUBECTL" -n "$ns_cli" apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: $n
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  automountServiceAccountToken: false
  containers:
  - name: workspace
    image: $IMAGE
    imagePullPolicy: Never
    command: ["tail", "-f", "/dev/null"]
    workingDir: /workspace
    volumeMounts:
    - { name: workspace, mountPath: /workspace }
  volumes:
  - { name: workspace, emptyDir: {} }
YAML
	"$KUBECTL" -n "$ns_cli" wait --for=condition=Ready "pod/$n" --timeout=10m >/dev/null
	"$KUBECTL" -n "$ns_cli" cp "$work/a.txt" "$n:/workspace/a.txt" -c workspace
	"$KUBECTL" -n "$ns_cli" cp "$work/b.bin" "$n:/workspace/b.bin" -c workspace
}
one_read() { "$KUBECTL" -n "$ns_cli" exec "bench-$1" -c workspace -- sha256sum /workspace/a.txt /workspace/b.bin >/dev/null; }
one_rm() { "$KUBECTL" -n "$ns_cli" delete pod "bench-$1" --grace-period=1 --wait=true >/dev/null; }
export -f one_up one_read one_rm
s0=$(now)
seq "$N" | xargs -P "$P" -I{} bash -c 'one_up {}'
s1=$(now)
seq "$N" | xargs -P "$P" -I{} bash -c 'one_read {}'
s2=$(now)
seq "$N" | xargs -P "$P" -I{} bash -c 'one_rm {}'
s3=$(now)

scale_rows "$N pod workspaces x 2 files, vs kubectl loop" "$((N * 3))" "$s0" "$s1" "$s2" "$s3" "$N pod workspaces" "kubectl exec sha256sum loop" "kubectl delete loop"
