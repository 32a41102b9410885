#!/usr/bin/env bash
# test-fresh.sh: `make test-fresh`, make test as CI runs it on a machine that
# never built the project: a fresh clone of HEAD (committed work only) in a
# temporary folder, with empty GOMODCACHE and GOCACHE (every module is
# downloaded, every package and tool compiled) and no build/ folder, run as
# `CI=true bash .ci/run`. A test that leans on a cache or a file that an
# earlier, unrelated make target left fails here before it fails a new runner.
#
# What it cannot empty is the machine itself: Debian packages installed by an
# earlier run, a Docker daemon that answers, and its test image, are used as
# they are (scripts/docker-up.sh rebuilds the image when its version changes).
# KEEP=1 keeps the folder (clone, caches, logs); otherwise it is removed.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d "${TMPDIR:-/tmp}/sandbox-test-fresh.XXXXXX")
export GOMODCACHE=$work/gomodcache GOCACHE=$work/gocache
unset GOFLAGS
cleanup() {
	local rc=$?
	if [ "${KEEP:-}" = 1 ]; then
		echo "test-fresh: kept $work" >&2
	else
		go clean -modcache >/dev/null 2>&1 || true # the module cache is read-only
		rm -rf "$work"
	fi
	exit "$rc"
}
trap cleanup EXIT

git clone -q --no-hardlinks "$PWD" "$work/src"
echo "test-fresh: $(git -C "$work/src" log -1 --format='%h %s') in $work/src, empty GOMODCACHE and GOCACHE" >&2
s=$(date +%s)
rc=0
(cd "$work/src" && CI=true bash .ci/run) || rc=$?
took=$(($(date +%s) - s))
echo "test-fresh: exit $rc in $((took / 60)) min $((took % 60)) s" >&2
exit "$rc"
