#!/usr/bin/env bash
# Builds an image for Docker workspaces with nothing pulled (see Dockerfile
# and docs/guides/images.md):
#
#   ./build.sh [image]          default: sandbox-example/agent:latest
#
# Needs a static BusyBox (Debian: apt-get install busybox-static; or name one
# with BUSYBOX=...) and a Docker daemon. The shadow account tools of this
# machine (groupadd, useradd, usermod: Debian's passwd package) are copied in
# with their shared libraries when present, so that a workspace's `users` and
# `groups` can be provisioned; without them the image still works, but only
# with accounts written into its /etc/passwd. EXTRA_TOOLS names more
# binaries to copy into /usr/local/bin (static ones, or with their libraries).
set -euo pipefail
image=${1:-sandbox-example/agent:latest}
here=$(cd "$(dirname "$0")" && pwd)
busybox=${BUSYBOX:-$(command -v busybox || echo /bin/busybox)}

say() { echo "build.sh: $*" >&2; }

if [ ! -x "$busybox" ] || ldd "$busybox" >/dev/null 2>&1; then
  say "no static busybox at $busybox (Debian: apt-get install busybox-static, or set BUSYBOX)"
  exit 1
fi

ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
rootfs=$ctx/rootfs
mkdir -p "$rootfs/bin"
cp "$busybox" "$rootfs/bin/busybox"

# copy_with_libs <dir> <binary>...: each binary into <dir> of the image, with
# the shared libraries ldd lists for it at their own paths.
copy_with_libs() {
  local dir=$1 bin lib
  shift
  mkdir -p "$rootfs$dir"
  for bin in "$@"; do
    cp -pL "$bin" "$rootfs$dir/" # -p keeps a setuid bit (fusermount3)
    for lib in $(ldd "$bin" 2>/dev/null | awk '$2 == "=>" {print $3} $1 ~ /^\// {print $1}'); do
      mkdir -p "$rootfs$(dirname "$lib")"
      cp -L "$lib" "$rootfs$lib"
    done
  done
}

shadow=()
for tool in groupadd useradd usermod; do
  p=$(command -v "$tool" || true)
  [ -n "$p" ] && shadow+=("$p")
done
if [ ${#shadow[@]} -eq 3 ]; then
  copy_with_libs /usr/sbin "${shadow[@]}"
  mkdir -p "$rootfs/etc"
  [ -f /etc/login.defs ] && cp /etc/login.defs "$rootfs/etc/login.defs"
else
  say "groupadd, useradd or usermod missing here: $image cannot provision users (write accounts into its /etc/passwd instead)"
fi

for tool in ${EXTRA_TOOLS:-}; do
  p=$(command -v "$tool") || { say "EXTRA_TOOLS: $tool not found"; exit 1; }
  copy_with_libs /usr/local/bin "$p"
done

cp "$here/Dockerfile" "$ctx/Dockerfile"
say "building $image FROM scratch (nothing pulled)"
docker build -q -t "$image" "$ctx"
