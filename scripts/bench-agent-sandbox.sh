#!/usr/bin/env bash
# bench-agent-sandbox.sh PROVIDER: how long `terraform apply` takes from its
# start to a workspace with one file written, on the test cluster (which
# must be up, with the agent-sandbox controller: KUBECONFIG names it; make
# bench-scale-kube starts and stops it), for
#   (a) a cold `kubernetes {}` pod,
#   (b) an `agent_sandbox {}` Sandbox created directly (its pod inline),
#   (c) an `agent_sandbox {}` claim from a warm pool of 10 (a
#       sandbox_kubernetes_warm_pool applied first, its members ready),
# one workspace per apply, each destroyed before the next, the three taken
# in turn, SANDBOX_BENCH_ROUNDS times (default 10). Medians, and (b) and
# (c) as ratios to (a); goal: (c) at most 0.25. Rows go to $BENCH_TABLE.
set -euo pipefail
provider=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/.."
repo=$PWD
TF=${TERRAFORM:-terraform}
IMAGE=${SANDBOX_KUBE_IMAGE:-docker.io/sandbox-test/busybox:latest}
ROUNDS=${SANDBOX_BENCH_ROUNDS:-10}
BUILD=${BUILD:-$PWD/build}
KUBECTL=${KUBECTL:-$BUILD/kube/bin/kubectl}
: "${KUBECONFIG:?KUBECONFIG must name the test cluster (make bench-scale-kube starts it)}"
export KUBECONFIG
mkdir -p "$BUILD/bin" "$BUILD/bench"
CGO_ENABLED=0 go build -o "$BUILD/bin/sandbox-fs-helper" ./cmd/sandbox-fs-helper
export SANDBOX_FS_HELPER=$BUILD/bin/sandbox-fs-helper
. "$repo/scripts/bench-lib.sh"

work=$(mktemp -d "$BUILD/bench/agent-sandbox.XXXXXX")
ns="sandbox-bench-as-$$"
cleanup() {
	for d in pod sandbox claim pool; do
		[ -f "$work/$d/terraform.tfstate" ] && "$TF" -chdir="$work/$d" destroy -auto-approve -input=false >/dev/null 2>&1 || true
	done
	"$KUBECTL" delete namespace "$ns" --ignore-not-found --wait=false >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
"$KUBECTL" create namespace "$ns" >/dev/null
for _ in $(seq 100); do
	"$KUBECTL" -n "$ns" get serviceaccount default >/dev/null 2>&1 && break
	sleep 0.2
done
export TF_CLI_CONFIG_FILE TF_IN_AUTOMATION=1
TF_CLI_CONFIG_FILE=$("$repo/scripts/dev-cli-config.sh" "$provider")

head='terraform {
  required_providers {
    sandbox = { source = "agentsandbox/sandbox" }
  }
}
provider "sandbox" {
  kubernetes {
    config_path = "'"$KUBECONFIG"'"
  }
}'
file='resource "sandbox_file" "f" {
  workspace_id = sandbox_workspace.ws.id
  path         = "task.md"
  content      = "one file\n"
}'
mkdir -p "$work/pod" "$work/sandbox" "$work/claim" "$work/pool"
cat >"$work/pod/main.tf" <<HCL
$head
resource "sandbox_workspace" "ws" {
  kubernetes {
    namespace         = "$ns"
    image             = "$IMAGE"
    image_pull_policy = "Never"
  }
}
$file
HCL
cat >"$work/sandbox/main.tf" <<HCL
$head
resource "sandbox_workspace" "ws" {
  agent_sandbox {
    namespace         = "$ns"
    image             = "$IMAGE"
    image_pull_policy = "Never"
  }
}
$file
HCL
cat >"$work/claim/main.tf" <<HCL
$head
resource "sandbox_workspace" "ws" {
  agent_sandbox {
    namespace = "$ns"
    warm_pool = "bench"
  }
}
$file
HCL
cat >"$work/pool/main.tf" <<HCL
$head
resource "sandbox_kubernetes_template" "t" {
  name              = "bench"
  namespace         = "$ns"
  image             = "$IMAGE"
  image_pull_policy = "Never"
}
resource "sandbox_kubernetes_warm_pool" "p" {
  name      = "bench"
  namespace = "$ns"
  template  = sandbox_kubernetes_template.t.name
  replicas  = 10
}
HCL

echo "== One workspace with one file, apply start to file written: cold pod, Sandbox, claim from a warm pool of 10 ($ROUNDS rounds)"
"$TF" -chdir="$work/pool" apply -auto-approve -input=false -no-color >"$work/pool.log" 2>&1 || { cat "$work/pool.log" >&2; exit 1; }
declare -A times
for r in $(seq "$ROUNDS"); do
	for k in pod sandbox claim; do
		t0=$(now)
		"$TF" -chdir="$work/$k" apply -auto-approve -input=false -no-color >"$work/$k.log" 2>&1 || { cat "$work/$k.log" >&2; exit 1; }
		t1=$(now)
		times[$k]="${times[$k]:-} $(secs "$t0" "$t1")"
		"$TF" -chdir="$work/$k" destroy -auto-approve -input=false -no-color >"$work/$k-destroy.log" 2>&1 ||
			{ cat "$work/$k-destroy.log" >&2; exit 1; }
	done
done
median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
pod=$(echo "${times[pod]}" | median)
sandbox=$(echo "${times[sandbox]}" | median)
claim=$(echo "${times[claim]}" | median)
for k in pod sandbox claim; do echo "  $k:${times[$k]}"; done
primed=$("$KUBECTL" -n "$ns" get pods -o jsonpath='{range .items[*]}{.metadata.name} {.spec.ephemeralContainers[*].name}{"\n"}{end}' | grep -c sandbox-fs-helper || true)
echo "  pool members with the helper installed at the end: $primed of 10"
printf '%-62s %8s s   (the base of the two rows below)\n' "cold kubernetes {} pod: apply to one file written, median" "$pod"
row_ratio "agent-sandbox Sandbox created directly vs the cold pod" "$sandbox" "$pod" 1.0
row_ratio "claim from a warm pool of 10 vs the cold pod" "$claim" "$pod" 0.25
