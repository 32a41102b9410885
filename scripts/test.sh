#!/usr/bin/env bash
# test.sh: `make test`, what CI runs, in phases with their minutes.
#
# The phases run in this order, in the foreground:
#   checks       fmt-check, vet, lint, docs-check, validate-examples (Terraform)
#   terraform    testacc: every package under Terraform, Docker tests included
#   opentofu     validate-examples-tofu, test-mirror, testacc-tofu
#   kubernetes   test-kubernetes: the cluster's tests under both CLIs
# Nothing of one phase's state is shared with another's, but the later phases
# need tools that a fresh machine has to build from source: OpenTofu's CLI
# (tools/go.mod) and the cluster's binaries (make kube-bins). Those are built
# from the first second on, in the background at the lowest CPU priority
# (nice 19), so they take only the CPU the tests leave idle; a phase waits for
# its tools only when they are not ready by then. A background build that
# fails fails the run. On a machine that has built them before, the Go build
# cache makes these builds a matter of seconds.
#
# Each phase's wall time is printed as it ends, and all of them at the end
# (also written to build/test-phases.tsv: phase, seconds, result).
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${BUILD:-$PWD/build}
mkdir -p "$BUILD/logs"
TABLE=$BUILD/test-phases.tsv
: >"$TABLE"
make=(make --no-print-directory)
run_start=$(date +%s)

say() { echo "test: $*" >&2; }

# Background builds: tofu first (the opentofu phase needs it first), then
# the cluster's binaries. One make at a time, so that no target is built
# twice. Each line of $parts says "<what> <exit code> <seconds since start>".
bg_log=$BUILD/logs/test-tools.log
parts=$BUILD/logs/test-tools.parts
rm -f "$parts"
build_tools() {
	local rc=0
	nice -n 19 "${make[@]}" "$BUILD/tools/tofu" >"$bg_log" 2>&1 || rc=$?
	echo "tofu $rc $(($(date +%s) - run_start))" >>"$parts"
	if [ "$rc" = 0 ]; then
		nice -n 19 "${make[@]}" kube-bins >>"$bg_log" 2>&1 || rc=$?
	fi
	echo "kube-bins $rc $(($(date +%s) - run_start))" >>"$parts"
}
set -m # the background build gets a process group of its own, ended on exit
build_tools &
bg_pid=$!
set +m

# wait_tools <tofu|kube-bins>: until that background build has ended; fails
# the run (with the end of its log) when it failed.
wait_tools() {
	local what=$1 s line
	s=$(date +%s)
	while ! line=$(grep "^$what " "$parts" 2>/dev/null); do
		if ! kill -0 "$bg_pid" 2>/dev/null && ! grep -q "^$what " "$parts" 2>/dev/null; then
			say "the background build of $what ended without a result; the end of $bg_log:"
			tail -n 50 "$bg_log" >&2
			return 1
		fi
		sleep 2
	done
	read -r _ rc at <<<"$line"
	if [ "$rc" != 0 ]; then
		say "building $what failed (exit $rc); the end of $bg_log:"
		tail -n 50 "$bg_log" >&2
		return 1
	fi
	say "$what ready, built in the background by $((at / 60)) min $((at % 60)) s; waited $(($(date +%s) - s)) s for it"
}

# phase <name> <command>...: runs it, records its wall time and result.
phase() {
	local name=$1 s rc=0
	shift
	s=$(date +%s)
	say "=== phase $name: $*"
	"$@" || rc=$?
	local took=$(($(date +%s) - s)) result=passed
	[ "$rc" = 0 ] || result="failed (exit $rc)"
	printf '%s\t%s\t%s\n' "$name" "$took" "$result" >>"$TABLE"
	say "=== phase $name: $result in $((took / 60)) min $((took % 60)) s"
	return "$rc"
}

summary() {
	local rc=$? all=$(($(date +%s) - run_start))
	kill -- -"$bg_pid" 2>/dev/null || true
	echo
	echo "make test phases (wall time):"
	awk -F'\t' '{printf "  %-12s %3d min %02d s  %s\n", $1, $2 / 60, $2 % 60, $3}' "$TABLE"
	[ ! -e "$parts" ] || awk '{printf "  (%s built in the background by %d min %02d s, exit %s)\n", $1, $3 / 60, $3 % 60, $2}' "$parts"
	printf '  %-12s %3d min %02d s\n' total $((all / 60)) $((all % 60))
	exit "$rc"
}
trap summary EXIT

opentofu() { wait_tools tofu && "${make[@]}" validate-examples-tofu test-mirror testacc-tofu; }
kubernetes() { wait_tools kube-bins && "${make[@]}" test-kubernetes; }

phase checks "${make[@]}" fmt-check vet lint docs-check validate-examples
phase terraform "${make[@]}" testacc
phase opentofu opentofu
phase kubernetes kubernetes
