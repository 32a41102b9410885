#!/usr/bin/env bash
# bench-docker.sh PROVIDER: the Docker rows of the performance table, as
# ratios from this one run with the goal beside each.
#
# 1. Copy the benchmark tree (10,000 files, about 200 MB, the same bytes as
#    the local backend's copy benchmark) into a container workspace with the
#    engine (host scan, one tar stream to the in-container helper) and with
#    `docker cp`, three times each after a warm-up: median times and their
#    ratio (goal: at most 1.3x).
# 2. Daemon round trips (API requests) of writing one file into a Docker
#    workspace and of refreshing one, the workspace opened once (goal: at
#    most 3), from the engine test that bounds them.
# 3. A fleet of 20 Docker workspaces of 2 files each (sandbox_file from host
#    files), `terraform apply` and `terraform destroy` with the built
#    provider, against a shell loop of `docker run -d` + `docker cp` of the
#    same two files, 20 times, and a loop of `docker rm -f` of the 20
#    containers
#    (goal: at most 1.5x each).
#
# The tree is generated once into $SANDBOX_BENCH_DIR (default
# build/bench-data) and reused. Needs a Docker daemon and the test image:
# run scripts/docker-up.sh first (`make bench-docker` does).
set -euo pipefail
provider=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/.."
repo=$PWD
TF=${TERRAFORM:-terraform}
IMAGE=${SANDBOX_TEST_IMAGE:-sandbox-test/busybox:latest}

BUILD=${BUILD:-$PWD/build}
export SANDBOX_BENCH_DIR=${SANDBOX_BENCH_DIR:-$BUILD/bench-data}
mkdir -p "$SANDBOX_BENCH_DIR" "$BUILD/bin" "$BUILD/bench"
CGO_ENABLED=0 go build -o "$BUILD/bin/sandbox-fs-helper" ./cmd/sandbox-fs-helper
export SANDBOX_FS_HELPER=$BUILD/bin/sandbox-fs-helper
# CI=true: a missing daemon fails instead of skipping the benchmark.
copy_out=$(CI=true go test -tags bench -count=1 -timeout 30m -run '^TestDockerCopyBenchmark$' -v \
	./internal/sandbox/workspace | grep -E '^(docker copy|--- FAIL|FAIL)' || true)
echo "$copy_out"
. "$repo/scripts/bench-lib.sh"
# The summary table's row: the engine's median against docker cp's.
echo "$copy_out" | sed -n 's/^docker copy of \([0-9]*\) files: engine \([0-9.]*\)s .*docker cp \([0-9.]*\)s .*$/\1 \2 \3/p' |
	while read -r files engine dockercp; do
		row_ratio "tree copy into a container ($files files) vs docker cp" "$engine" "$dockercp" 1.0 >/dev/null
	done

echo "== daemon round trips per file (goal <= 3)"
CI=true go test -count=1 -timeout 10m -run '^TestDockerRoundTrips$' -v ./internal/sandbox/workspace |
	sed -n -e 's/^.*docker_roundtrips_test.go:[0-9]*: \(.*(new process)\): \([0-9]*\) API requests, .*$/docker \1: \2 round trips (once per provider process: + version negotiation, helper check)/p' \
		-e '/(new process)/d' \
		-e 's/^.*docker_roundtrips_test.go:[0-9]*: \(.*\): \([0-9]*\) API requests, .*$/docker \1: \2 round trips (goal <= 3)/p' -e '/^--- FAIL/p'

echo "== 20 Docker workspaces x 2 files: terraform vs docker run -d + docker cp"
work=$(mktemp -d "$BUILD/bench/docker.XXXXXX")
names=()
cleanup() {
	[ ${#names[@]} -gt 0 ] && docker rm -f "${names[@]}" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
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
resource "sandbox_workspace" "w" {
  count = 20
  docker {
    image       = "$IMAGE"
    pull_policy = "never"
  }
}
resource "sandbox_file" "a" {
  count        = 20
  workspace_id = sandbox_workspace.w[count.index].id
  path         = "a.txt"
  source       = "a.txt"
}
resource "sandbox_file" "b" {
  count        = 20
  workspace_id = sandbox_workspace.w[count.index].id
  path         = "b.bin"
  source       = "b.bin"
}
HCL

. "$repo/scripts/bench-lib.sh"

t0=$(now)
"$TF" -chdir="$work" apply -auto-approve -input=false -no-color >"$work/apply.log" 2>&1 || { cat "$work/apply.log" >&2; exit 1; }
t1=$(now)
"$TF" -chdir="$work" destroy -auto-approve -input=false -no-color >"$work/destroy.log" 2>&1 || { cat "$work/destroy.log" >&2; exit 1; }
t2=$(now)
for i in $(seq 20); do
	n="sandbox-bench-$$-$i"
	names+=("$n")
	docker run -d --name "$n" -w /workspace --entrypoint tail "$IMAGE" -f /dev/null >/dev/null
	docker cp "$work/a.txt" "$n:/workspace/a.txt" >/dev/null
	docker cp "$work/b.bin" "$n:/workspace/b.bin" >/dev/null
done
t3=$(now)
for n in "${names[@]}"; do docker rm -f "$n" >/dev/null; done
names=()
t4=$(now)
apply=$(secs "$t0" "$t1") destroy=$(secs "$t1" "$t2") run=$(secs "$t2" "$t3") rm=$(secs "$t3" "$t4")
row_ratio "20-workspace fleet apply vs docker run -d + docker cp loop" "$apply" "$run" 1.5
row_ratio "20-workspace fleet destroy vs docker rm -f loop" "$destroy" "$rm" 1.5
