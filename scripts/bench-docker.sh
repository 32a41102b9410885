#!/usr/bin/env bash
# bench-docker.sh: copy the benchmark tree (10,000 files, about 200 MB, the
# same bytes as the local backend's copy benchmark) into a container
# workspace with the engine (host scan, one tar stream to the in-container
# helper) and with `docker cp`, three times each after a warm-up, and print
# the median times and their ratio (goal: at most 1.3x).
#
# The tree is generated once into $SANDBOX_BENCH_DIR (default
# build/bench-data) and reused. Needs a Docker daemon and the test image:
# run scripts/docker-up.sh first (`make bench-docker` does).
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${BUILD:-$PWD/build}
export SANDBOX_BENCH_DIR=${SANDBOX_BENCH_DIR:-$BUILD/bench-data}
mkdir -p "$SANDBOX_BENCH_DIR" "$BUILD/bin"
CGO_ENABLED=0 go build -o "$BUILD/bin/sandbox-fs-helper" ./cmd/sandbox-fs-helper
export SANDBOX_FS_HELPER=$BUILD/bin/sandbox-fs-helper
# CI=true: a missing daemon fails instead of skipping the benchmark.
CI=true go test -tags bench -count=1 -timeout 30m -run '^TestDockerCopyBenchmark$' -v \
	./internal/sandbox/workspace | grep -E '^(docker copy|--- |FAIL|ok )'
