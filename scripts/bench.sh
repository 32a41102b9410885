#!/usr/bin/env bash
# make bench: copy benchmarks for the local backend.
#
# 1. The Go benchmarks of the engine (scan and hash as a plan does, then
#    copy as an apply does), with their peak memory.
# 2. A whole-process comparison: `terraform apply` of a sandbox_local_dir
#    (10,000 files, ~200 MB) and of a sandbox_file (1 GiB) against
#    `cp -a` plus `sha256sum` (and plus `openssl dgst -sha256`, the hashing
#    speed limit of these CPUs) of the same data, with the provider's peak
#    resident memory (VmHWM of the provider process, run with -debug and
#    attached through TF_REATTACH_PROVIDERS).
# Data is generated once into build/bench/data (or $SANDBOX_BENCH_DIR) and
# kept; every copy reads it from a warm page cache.
set -euo pipefail
provider=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/.."
repo=$PWD
TF=${TERRAFORM:-terraform}
export SANDBOX_BENCH_DIR=${SANDBOX_BENCH_DIR:-$repo/build/bench/data}
mkdir -p "$SANDBOX_BENCH_DIR" "$repo/build/bench"

echo "== Go benchmarks (internal/sandbox/backend/local)"
go test -run '^$' -bench 'BenchmarkCopy' -benchtime=1x ./internal/sandbox/backend/local/ | grep -E '^(Benchmark|ok|FAIL)'

work=$(mktemp -d "$repo/build/bench/run.XXXXXX")
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
export TF_CLI_CONFIG_FILE
TF_CLI_CONFIG_FILE=$("$repo/scripts/dev-cli-config.sh" "$provider")
export TF_IN_AUTOMATION=1

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# baseline SRC HASHER: cp -a SRC, then hash every file of SRC.
baseline() {
  local src=$1 hasher=$2 t0 t1
  rm -rf "$work/cp"
  t0=$(now)
  cp -a "$src" "$work/cp"
  (cd "$src" && find . -type f -print0 | xargs -0 $hasher >/dev/null)
  t1=$(now)
  rm -rf "$work/cp"
  secs "$t0" "$t1"
}

# provider_apply NAME HCL: terraform apply of HCL with a provider started
# here, so its peak memory can be read; prints "<seconds> <peak MiB>".
provider_apply() {
  local name=$1 hcl=$2 dir="$work/$1" log="$work/$1.provider.log" t0 t1 peak reattach
  mkdir -p "$dir"
  printf '%s\n' "$hcl" >"$dir/main.tf"
  "$provider" -debug >"$log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do
    reattach=$(sed -n "s/^[[:space:]]*TF_REATTACH_PROVIDERS='\(.*\)'\$/\1/p" "$log" | head -n1)
    [ -n "$reattach" ] && break
    sleep 0.1
  done
  [ -n "$reattach" ] || { echo "provider did not start:" >&2; cat "$log" >&2; exit 1; }
  t0=$(now)
  TF_REATTACH_PROVIDERS=$reattach "$TF" -chdir="$dir" apply -auto-approve -input=false -no-color >"$dir/apply.log" 2>&1 ||
    { cat "$dir/apply.log" >&2; exit 1; }
  t1=$(now)
  peak=$(awk '/^VmHWM:/ { printf "%.1f", $2 / 1024 }' "/proc/$pid/status")
  TF_REATTACH_PROVIDERS=$reattach "$TF" -chdir="$dir" destroy -auto-approve -input=false -no-color >/dev/null 2>&1 || true
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  pid=
  echo "$(secs "$t0" "$t1") $peak"
}

config() {
  cat <<HCL
terraform {
  required_providers {
    sandbox = { source = "agentsandbox/sandbox" }
  }
}
provider "sandbox" {
  local_base_dir    = "$work/workspaces"
  extra_path_grants = [{ path = "$SANDBOX_BENCH_DIR", read_only = true }]
}
resource "sandbox_workspace" "ws" {
  local {}
}
$1
HCL
}

tree_hcl=$(config "resource \"sandbox_local_dir\" \"tree\" {
  workspace_id = sandbox_workspace.ws.id
  path         = \"tree\"
  source       = \"$SANDBOX_BENCH_DIR/tree\"
}")
big_hcl=$(config "resource \"sandbox_file\" \"big\" {
  workspace_id = sandbox_workspace.ws.id
  path         = \"big.bin\"
  source       = \"$SANDBOX_BENCH_DIR/big/big.bin\"
}")

report() {
  local label=$1 src=$2 hcl=$3 base_sha base_ssl run
  # Warm the page cache with one untimed pass.
  (cd "$src" && find . -type f -print0 | xargs -0 cat >/dev/null)
  base_sha=$(baseline "$src" sha256sum)
  base_ssl=$(baseline "$src" "openssl dgst -sha256")
  run=$(provider_apply "$(basename "$src")" "$hcl")
  set -- $run
  awk -v l="$label" -v a="$1" -v s="$base_sha" -v o="$base_ssl" -v m="$2" 'BEGIN {
    printf "%-34s terraform apply %6.2f s | cp -a + sha256sum %6.2f s (ratio %.2fx) | cp -a + openssl %6.2f s (ratio %.2fx) | provider peak %s MiB\n", l, a, s, a / s, o, a / o, m
  }'
}

echo
echo "== Whole process: terraform apply (plan + apply, hashing included) versus cp -a and hashing"
files=$(find "$SANDBOX_BENCH_DIR/tree" -type f | wc -l)
mb=$(du -sm --apparent-size "$SANDBOX_BENCH_DIR/tree" | cut -f1)
report "local_dir: $files files, $mb MB" "$SANDBOX_BENCH_DIR/tree" "$tree_hcl"
report "file: 1 GiB" "$SANDBOX_BENCH_DIR/big" "$big_hcl"
