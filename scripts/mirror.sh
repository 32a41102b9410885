#!/usr/bin/env bash
# make mirror: lays the provider out as a Terraform/OpenTofu filesystem mirror
# (the "packed" layout) in the directory given as $1:
#   <dir>/registry.terraform.io/agentsandbox/sandbox/terraform-provider-sandbox_<version>_<os>_<arch>.zip
#   <dir>/registry.opentofu.org/agentsandbox/sandbox/terraform-provider-sandbox_<version>_<os>_<arch>.zip
# By default it builds the zip for this machine's platform, as the release
# builds it (CGO_ENABLED=0, -trimpath, the version stamped in). With
# MIRROR_FROM=<dir> it copies the release zips found there instead (the
# assets of a GitHub release, or dist/ after `make release-check`).
#
# The version: $VERSION when set; else the tag vX.Y.Z on HEAD; else a
# development build, <last tag or 0.0.0>+dev.<commits>.g<commit>[.dirty].
# Semver build metadata (not a pre-release) because Terraform and OpenTofu
# select a pre-release only when a configuration names it exactly.
set -euo pipefail
mirror=$1
cd "$(dirname "$0")/.."
project=terraform-provider-sandbox
hosts=(registry.terraform.io registry.opentofu.org)
semver='^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$'
fail() { echo "mirror: $*" >&2; exit 1; }
command -v zip >/dev/null || fail "needs zip (apt-get install zip)"

place() { # place <zip>: copy one release zip under both registry hosts
  for host in "${hosts[@]}"; do
    mkdir -p "$mirror/$host/agentsandbox/sandbox"
    cp "$1" "$mirror/$host/agentsandbox/sandbox/"
  done
  echo "mirror: $(basename "$1")"
}

if [ -n "${MIRROR_FROM:-}" ]; then
  n=0
  for zip in "$MIRROR_FROM"/${project}_*_*_*.zip; do
    [ -f "$zip" ] || continue
    place "$zip"
    n=$((n + 1))
  done
  [ "$n" -gt 0 ] || fail "no ${project}_<version>_<os>_<arch>.zip in $MIRROR_FROM"
  echo "mirror: $n release zips in $mirror"
  exit 0
fi

version=${VERSION:-}
if [ -z "$version" ]; then
  if tag=$(git describe --tags --exact-match --match 'v[0-9]*' HEAD 2>/dev/null); then
    version=${tag#v}
  else
    base=0.0.0
    count=$(git rev-list --count HEAD 2>/dev/null || echo 0)
    if last=$(git describe --tags --abbrev=0 --match 'v[0-9]*' HEAD 2>/dev/null); then
      base=${last#v}
      count=$(git rev-list --count "$last..HEAD")
    fi
    sha=$(git rev-parse --short=7 HEAD 2>/dev/null || echo unknown)
    version="$base+dev.$count.g$sha"
    [ -z "$(git status --porcelain 2>/dev/null)" ] || version="$version.dirty"
  fi
fi
[[ $version =~ $semver ]] || fail "version '$version' is not semver (X.Y.Z[-pre][+build])"

os=$(go env GOOS)
arch=$(go env GOARCH)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin="${project}_v${version}"
[ "$os" = windows ] && bin="$bin.exe"
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$version" -o "$work/$bin" .
zip="$work/${project}_${version}_${os}_${arch}.zip"
(cd "$work" && zip -q -X "$(basename "$zip")" "$bin")
# A development build replaces the previous one; releases stay.
for host in "${hosts[@]}"; do
  rm -f "$mirror/$host/agentsandbox/sandbox/${project}_"*+dev.*"_${os}_${arch}.zip"
done
place "$zip"
echo "mirror: version $version in $mirror"
