#!/usr/bin/env bash
# make release-check: `goreleaser check`, then a snapshot release build into
# dist/, then checks that dist/ holds what the Terraform registry expects:
# one zip per os/arch with the provider binary built for that platform, the
# registry manifest, and a SHA256SUMS file covering all of them.
# Signing is skipped: it needs the release GPG key (GPG_FINGERPRINT).
set -euo pipefail
goreleaser=$1
cd "$(dirname "$0")/.."
command -v unzip >/dev/null || { echo "release-check: needs unzip" >&2; exit 1; }

"$goreleaser" check
"$goreleaser" release --snapshot --clean --skip=sign

fail() { echo "release-check: $*" >&2; exit 1; }

project=terraform-provider-sandbox
version=$(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' dist/metadata.json)
[ -n "$version" ] || fail "no version in dist/metadata.json"
prefix="dist/${project}_${version}"

sums="${prefix}_SHA256SUMS"
manifest="${prefix}_manifest.json"
[ -f "$sums" ] || fail "missing $sums"
grep -q '"6.0"' terraform-registry-manifest.json || fail "terraform-registry-manifest.json does not declare protocol 6.0"
# A release uploads terraform-registry-manifest.json under this name
# (release.extra_files); a snapshot publishes nothing, so put it where the
# release would, and let SHA256SUMS prove the name and content it signs.
grep -q "terraform-registry-manifest.json" dist/config.yaml || fail "the release does not publish the registry manifest"
cp terraform-registry-manifest.json "$manifest"

# Every zip and the manifest are in SHA256SUMS, and every sum is right.
(cd dist && sha256sum --check --strict --quiet "$(basename "$sums")") || fail "SHA256SUMS does not match dist/"
grep -q "  $(basename "$manifest")\$" "$sums" || fail "the manifest is not in SHA256SUMS"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
for os in linux darwin windows freebsd; do
  for arch in amd64 arm64; do
    zip="${prefix}_${os}_${arch}.zip"
    [ -f "$zip" ] || fail "missing $zip"
    grep -q "  $(basename "$zip")\$" "$sums" || fail "$zip is not in SHA256SUMS"
    bin="${project}_v${version}"
    [ "$os" = windows ] && bin="$bin.exe"
    rm -rf "${work:?}"/*
    unzip -q "$zip" -d "$work"
    [ -f "$work/$bin" ] || fail "$zip does not hold $bin"
    # The binary is built for this platform, without cgo, with the version.
    info=$(go version -m "$work/$bin")
    grep -qE "^\s+build\s+GOOS=$os\$" <<<"$info" || fail "$zip: $bin is not built for $os"
    grep -qE "^\s+build\s+GOARCH=$arch\$" <<<"$info" || fail "$zip: $bin is not built for $arch"
    grep -qE "^\s+build\s+CGO_ENABLED=0\$" <<<"$info" || fail "$zip: $bin is not built with CGO_ENABLED=0"
    # -trimpath keeps ldflags out of the build info: look for the string.
    grep -qaF "$version" "$work/$bin" || fail "$zip: $bin does not carry version $version"
    echo "ok    $(basename "$zip") ($bin, $os/$arch)"
    n=$((n + 1))
  done
done
zips=$(find dist -maxdepth 1 -name "${project}_${version}_*.zip" | wc -l)
[ "$zips" -eq "$n" ] || fail "dist/ holds $zips zips, expected $n"
echo "release-check: $n zips, $(basename "$manifest"), $(basename "$sums") verified (version $version)"
