#!/usr/bin/env bash
# bench-scale.sh PROVIDER: an evaluation suite's shape at scale, on Docker.
#
# N Docker workspaces (SANDBOX_BENCH_SCALE, default 200), each with 2 files
# (4 KiB and 1 MiB, from host files) and 1 command that reads them, through
# `terraform -parallelism=20` with a provider started here (so its CPU and
# peak memory can be read): apply, a no-op plan, destroy. Each phase is
# timed against a docker CLI loop doing the same work 20 at a time:
# `docker run -d` + 2 x `docker cp` + `docker exec` (apply), `docker exec
# sha256sum` of what is there (plan: what a refresh reads back), `docker rm
# -f` (destroy). Also: provider CPU per resource during the no-op plan and
# the provider's peak resident memory (VmHWM). Each row is recorded in
# $BENCH_TABLE (when set) for make bench's summary table.
set -euo pipefail
provider=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/.."
repo=$PWD
TF=${TERRAFORM:-terraform}
IMAGE=${SANDBOX_TEST_IMAGE:-sandbox-test/busybox:latest}
N=${SANDBOX_BENCH_SCALE:-200}
P=20
BUILD=${BUILD:-$PWD/build}
mkdir -p "$BUILD/bin" "$BUILD/bench"
CGO_ENABLED=0 go build -o "$BUILD/bin/sandbox-fs-helper" ./cmd/sandbox-fs-helper
export SANDBOX_FS_HELPER=$BUILD/bin/sandbox-fs-helper
. "$repo/scripts/bench-lib.sh"

work=$(mktemp -d "$BUILD/bench/scale.XXXXXX")
label="sandbox-bench-scale=$$"
pid=
count_pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null || true
	[ -n "$count_pid" ] && kill "$count_pid" 2>/dev/null || true
	docker ps -aq --filter "label=$label" | xargs -r docker rm -f >/dev/null 2>&1 || true
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
  count = $N
  docker {
    image       = "$IMAGE"
    pull_policy = "never"
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
resource "sandbox_command" "c" {
  count        = $N
  workspace_id = sandbox_workspace.w[count.index].id
  shell        = "cat a.txt b.bin | wc -c > count"
  depends_on   = [sandbox_file.a, sandbox_file.b]
}
HCL

echo "== $N Docker workspaces x (2 files + 1 command), -parallelism=$P: terraform vs a docker CLI loop, $P at a time"
start_dockercount "$work/docker.sock"
terraform_phases "$work"

export IMAGE label work
one_up() {
	n="sandbox-bench-scale-$PPID_LOOP-$1"
	docker run -d --label "$label" --name "$n" -w /workspace --entrypoint tail "$IMAGE" -f /dev/null >/dev/null
	docker exec "$n" mkdir -p /workspace
	docker cp "$work/a.txt" "$n:/workspace/a.txt" >/dev/null
	docker cp "$work/b.bin" "$n:/workspace/b.bin" >/dev/null
	docker exec -w /workspace "$n" sh -c 'cat a.txt b.bin | wc -c > count'
}
one_read() { docker exec -w /workspace "sandbox-bench-scale-$PPID_LOOP-$1" sha256sum a.txt b.bin count >/dev/null; }
one_rm() { docker rm -f "sandbox-bench-scale-$PPID_LOOP-$1" >/dev/null; }
export -f one_up one_read one_rm
export PPID_LOOP=$$
s0=$(now)
seq "$N" | xargs -P "$P" -I{} bash -c 'one_up {}'
s1=$(now)
seq "$N" | xargs -P "$P" -I{} bash -c 'one_read {}'
s2=$(now)
seq "$N" | xargs -P "$P" -I{} bash -c 'one_rm {}'
s3=$(now)

scale_rows "$N workspaces x (2 files + 1 command), vs docker CLI loop" "$((N * 4))" "$s0" "$s1" "$s2" "$s3" "$N workspaces" "docker exec sha256sum loop" "docker rm -f loop" "$N"
