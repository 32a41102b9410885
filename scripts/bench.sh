#!/usr/bin/env bash
# make bench: copy benchmarks for the local backend.
#
# 1. Whole-process rows of issue #18's table, as ratios from this one run
#    with the goal beside each: `terraform apply` of a sandbox_local_dir
#    (10,000 files, ~200 MB) against `cp -a` + `openssl dgst -sha256`; a
#    no-op `terraform plan` of it against the hashing pass; a no-op plan of
#    an unchanged large tree; a 1 GiB sandbox_file; 200 sandbox_file
#    (provider CPU per resource per plan); the provider's peak resident
#    memory (VmHWM of the provider process, run with -debug and attached
#    through TF_REATTACH_PROVIDERS). The digest cache is a fresh directory
#    per run, so every apply hashes its source once, as on a fresh clone.
# 2. A local fork (restore_from.workspace_id) of a workspace holding the
#    10,000-file tree against `cp -a --reflink=auto` of its root (the
#    whole `terraform apply` that creates the fork is timed).
# Data is generated once into build/bench/data (or $SANDBOX_BENCH_DIR) and
# kept; every copy reads it from a warm page cache.
set -euo pipefail
provider=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/.."
repo=$PWD
TF=${TERRAFORM:-terraform}
export SANDBOX_BENCH_DIR=${SANDBOX_BENCH_DIR:-$repo/build/bench/data}
mkdir -p "$SANDBOX_BENCH_DIR" "$repo/build/bench"

echo "== Benchmark data ($SANDBOX_BENCH_DIR, generated once)"
go test -run '^$' -bench '^BenchmarkData$' -benchtime=1x ./internal/sandbox/backend/local/ | grep -E '^(ok|FAIL)'

work=$(mktemp -d "$repo/build/bench/run.XXXXXX")
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
export SANDBOX_DIGEST_CACHE="$work/digests"
export TF_CLI_CONFIG_FILE
TF_CLI_CONFIG_FILE=$("$repo/scripts/dev-cli-config.sh" "$provider")
export TF_IN_AUTOMATION=1

. "$repo/scripts/bench-lib.sh"

# baseline SRC HASHER: cp -a SRC, then hash every file of SRC. The copy is
# kept until the script ends: on ext4, creating files within a few minutes
# of deleting many costs up to 10x more CPU (the inode allocator skips
# recently deleted inodes, reading inode tables to find them), so a
# baseline that removed its copy would slow down the apply timed after it.
n_base=0
baseline() {
  local src=$1 hasher=$2 t0 t1
  n_base=$((n_base + 1))
  t0=$(now)
  cp -a "$src" "$work/cp$n_base"
  (cd "$src" && find . -type f -print0 | xargs -0 $hasher >/dev/null)
  t1=$(now)
  secs "$t0" "$t1"
}

# provider_run NAME HCL: terraform apply of HCL, then a no-op terraform plan,
# with a provider started here (so its peak memory and CPU can be read);
# prints "<apply s> <peak MiB> <plan s> <provider CPU s during the plan>
# <second plan s>".
provider_run() {
  local name=$1 hcl=$2 dir="$work/$1" log="$work/$1.provider.log" t0 t1 t2 peak reattach c0 c1
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
  # Let the copy's digest cache entries age past its 2 s granularity, as
  # they have in any later plan.
  sleep 2.2
  c0=$(cpu_ticks "$pid")
  t2=$(now)
  TF_REATTACH_PROVIDERS=$reattach "$TF" -chdir="$dir" plan -detailed-exitcode -input=false -no-color >"$dir/plan.log" 2>&1 ||
    { echo "the plan after apply is not empty:" >&2; cat "$dir/plan.log" >&2; exit 1; }
  t3=$(now)
  c1=$(cpu_ticks "$pid")
  # A second no-op plan: the first one hashed the copy in the workspace once
  # (its files were written less than 2 s before the apply ended).
  t4=$(now)
  TF_REATTACH_PROVIDERS=$reattach "$TF" -chdir="$dir" plan -detailed-exitcode -input=false -no-color >"$dir/plan2.log" 2>&1 ||
    { echo "the second plan after apply is not empty:" >&2; cat "$dir/plan2.log" >&2; exit 1; }
  t5=$(now)
  TF_REATTACH_PROVIDERS=$reattach "$TF" -chdir="$dir" destroy -auto-approve -input=false -no-color >/dev/null 2>&1 || true
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  pid=
  echo "$(secs "$t0" "$t1") $peak $(secs "$t2" "$t3") $(awk -v a="$c0" -v b="$c1" -v t="$tick" 'BEGIN { printf "%.3f", (b - a) / t }') $(secs "$t4" "$t5")"
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

# hash_pass SRC: one openssl hashing pass over every file of SRC, in seconds.
hash_pass() {
  local t0 t1
  t0=$(now)
  (cd "$1" && find . -type f -print0 | xargs -0 openssl dgst -sha256 >/dev/null)
  t1=$(now)
  secs "$t0" "$t1"
}

# row LABEL VALUE BASE GOAL: one table row, VALUE/BASE as a ratio beside the goal.
# A goal "<= N.NNx ..." is recorded for the summary table; "(for reference)" is not.
row() {
  awk -v l="$1" -v v="$2" -v b="$3" -v g="$4" 'BEGIN { printf "%-58s %8.2f s vs %8.2f s  ratio %6.2fx   goal %s\n", l, v, b, v / b, g }'
  local goal
  goal=$(sed -n 's/^<= \([0-9.]*\)x.*/\1/p' <<<"$4")
  if [ -n "$goal" ]; then
    local r
    r=$(awk -v v="$2" -v b="$3" 'BEGIN { printf "%.2f", v / b }')
    record "$1" "${r}x ($2 s vs $3 s)" "$4" "$(awk -v r="$r" -v g="$goal" 'BEGIN { print (r <= g) ? "met" : "not met" }')"
  fi
}

warm() { (cd "$1" && find . -type f -print0 | xargs -0 cat >/dev/null); }

echo
echo "== Whole process (one run; read the ratios), with the goal of each row"
files=$(find "$SANDBOX_BENCH_DIR/tree" -type f | wc -l)
mb=$(du -sm --apparent-size "$SANDBOX_BENCH_DIR/tree" | cut -f1)
warm "$SANDBOX_BENCH_DIR/tree"
base_ssl=$(baseline "$SANDBOX_BENCH_DIR/tree" "openssl dgst -sha256")
base_sha=$(baseline "$SANDBOX_BENCH_DIR/tree" sha256sum)
pass=$(hash_pass "$SANDBOX_BENCH_DIR/tree")
set -- $(provider_run tree "$tree_hcl")
tree_peak=$2
row "apply sandbox_local_dir ($files files, $mb MB) vs cp -a + openssl" "$1" "$base_ssl" "<= 1.50x"
row "  the same vs cp -a + sha256sum" "$1" "$base_sha" "(for reference)"
row "no-op plan of it (the second after apply) vs 2 x one openssl pass ($pass s) + 1 s" "$5" "$(awk -v p="$pass" 'BEGIN { print 2 * p + 1 }')" "<= 1.00x"

# An unchanged large tree: the benchmark tree and the 1 GiB file together.
all_hcl=$(config "resource \"sandbox_local_dir\" \"all\" {
  workspace_id = sandbox_workspace.ws.id
  path         = \"all\"
  source       = \"$SANDBOX_BENCH_DIR\"
}")
all_mb=$(du -sm --apparent-size "$SANDBOX_BENCH_DIR" | cut -f1)
warm "$SANDBOX_BENCH_DIR"
set -- $(provider_run all "$all_hcl")
row "first no-op plan after apply, unchanged $all_mb MB tree, vs 2 s" "$3" 2 "<= 1.00x (under 2 s)"
row "next no-op plan of that tree vs 2 s" "$5" 2 "<= 1.00x (under 2 s)"

warm "$SANDBOX_BENCH_DIR/big"
base_ssl=$(baseline "$SANDBOX_BENCH_DIR/big" "openssl dgst -sha256")
set -- $(provider_run big "$big_hcl")
big_peak=$2
row "apply sandbox_file (1 GiB, host source) vs cp -a + openssl" "$1" "$base_ssl" "<= 1.30x"

# 200 sandbox_file in one local workspace: provider CPU per resource during a no-op plan.
many=""
for i in $(seq 200); do
  many="$many
resource \"sandbox_file\" \"f$i\" {
  workspace_id = sandbox_workspace.ws.id
  path         = \"files/f$i.txt\"
  content      = \"file $i\\n\"
}"
done
set -- $(provider_run many "$(config "$many")")
row_value "200 sandbox_file in a local workspace: provider CPU per resource per no-op plan" \
  "$(awk -v c="$4" 'BEGIN { printf "%.2f", c * 1000 / 200 }')" ms 5
row_value "provider peak memory, sandbox_local_dir of the tree" "$tree_peak" MiB 100
row_value "provider peak memory, 1 GiB sandbox_file" "$big_peak" MiB 100

# A local fork (restore_from.workspace_id) of a workspace holding the
# benchmark tree, against cp -a --reflink=auto of that workspace's root;
# the provider's log says how the files were copied.
fork_src_hcl=$(config "resource \"sandbox_local_dir\" \"tree\" {
  workspace_id = sandbox_workspace.ws.id
  path         = \"tree\"
  source       = \"$SANDBOX_BENCH_DIR/tree\"
}")
fork_hcl="$fork_src_hcl
resource \"sandbox_workspace\" \"fork\" {
  local {}
  restore_from = { workspace_id = sandbox_local_dir.tree.workspace_id }
}"
fork_dir="$work/fork"
mkdir -p "$fork_dir"
printf '%s\n' "$fork_src_hcl" >"$fork_dir/main.tf"
"$TF" -chdir="$fork_dir" apply -auto-approve -input=false -no-color >"$fork_dir/apply1.log" 2>&1 ||
  { cat "$fork_dir/apply1.log" >&2; exit 1; }
src_root=$("$TF" -chdir="$fork_dir" state show -no-color sandbox_workspace.ws | sed -n 's/^ *root *= *"\(.*\)"$/\1/p')
warm "$src_root"
t0=$(now)
cp -a --reflink=auto "$src_root" "$work/cp-fork"
t1=$(now)
base_fork=$(secs "$t0" "$t1")
printf '%s\n' "$fork_hcl" >"$fork_dir/main.tf"
t0=$(now)
TF_LOG_PROVIDER=INFO TF_LOG_PATH="$fork_dir/provider.log" "$TF" -chdir="$fork_dir" apply -auto-approve -input=false -no-color >"$fork_dir/apply2.log" 2>&1 ||
  { cat "$fork_dir/apply2.log" >&2; exit 1; }
t1=$(now)
row "local fork (restore_from.workspace_id), $files files, vs cp -a --reflink=auto" "$(secs "$t0" "$t1")" "$base_fork" "<= 2.00x"
sed -n 's/.*forked workspace .* by \([^:]*\): .* in \([0-9hmµns.]*s\): .*/  the copy itself (provider log): \1, \2/p' "$fork_dir/provider.log" | head -n1
"$TF" -chdir="$fork_dir" destroy -auto-approve -input=false -no-color >/dev/null 2>&1 || true

# Last, as they create and delete trees of their own (see baseline).
echo
echo "== Go benchmarks (internal/sandbox/backend/local)"
SANDBOX_DIGEST_CACHE=off go test -run '^$' -bench '^BenchmarkCopy' -benchtime=1x ./internal/sandbox/backend/local/ | grep -E '^(Benchmark|ok|FAIL)'
