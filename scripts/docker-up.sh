#!/usr/bin/env bash
# docker-up.sh: make sure a Docker daemon answers, the local test images
# exist and the storage-mount tools are installed, for the acceptance tests
# and benchmarks (`make test-deps`, which `make testacc` runs first).
#
# * rclone and fusermount3 (Debian's rclone and fuse3) are installed when
#   missing, whether or not a daemon answers: the storage-mount tests mount
#   buckets with them on this machine.
# * A daemon that already answers `docker info` (DOCKER_HOST or the default
#   socket) is used as it is.
# * Otherwise, as root on a Debian-like machine, Debian's docker.io and
#   busybox-static (and git, for the git_repo tests) are installed when
#   missing and dockerd is started in the background (log:
#   $SANDBOX_DOCKERD_LOG, default build/dockerd.log). The default storage
#   driver is tried first; when it cannot run a container here, dockerd is
#   restarted with --storage-driver=vfs.
# * The test image is built locally FROM scratch (docker import of a static
#   busybox root filesystem plus a few of this machine's binaries with their
#   shared libraries: the shadow account tools, rclone and fusermount3):
#   nothing is ever pulled. It is rebuilt when IMAGE_VERSION changes.
#
# * gVisor: Debian's runsc is installed when missing and, when the daemon
#   runs on this machine without a runsc runtime and without an
#   /etc/docker/daemon.json of its own, registered as the runtime "runsc"
#   (daemon.json, then SIGHUP to dockerd, which reloads its runtimes).
#   Debian's runsc (20221219) takes any network namespace of a kernel that
#   shows /proc/sys/net/core/rmem_default in it (6.x does) for the host's
#   and refuses to start ("cannot run with network enabled in root network
#   namespace"), so it is registered with --network=none; --file-access=shared
#   lets it see the file helper that the provider copies into a running
#   container. Without it the gVisor test skips, saying why.
#
# Packages are installed with apt-get, as root only. Under CI=true a missing
# daemon or mount tool fails this script; elsewhere it exits 0 after saying
# why (the tests concerned then skip with the same reason).
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${BUILD:-$PWD/build}
LOG=${SANDBOX_DOCKERD_LOG:-$BUILD/dockerd.log}
IMAGE=${SANDBOX_TEST_IMAGE:-sandbox-test/busybox:latest}
mkdir -p "$BUILD"

say() { echo "docker-up: $*" >&2; }

give_up() {
	say "$*"
	if [ "${CI:-}" = "true" ]; then
		say "CI=true: the Docker acceptance tests cannot run without a daemon; failing"
		exit 1
	fi
	say "the Docker acceptance tests will skip"
	exit 0
}

daemon_up() { docker info >/dev/null 2>&1; }

wait_daemon() { # wait_daemon <pid>: up to 60 s
	local pid=$1
	for _ in $(seq 1 120); do
		daemon_up && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.5
	done
	return 1
}

# apt_install <package>...: install Debian packages with apt-get; fails when
# this machine cannot (not root, no apt-get) or apt-get does.
apt_updated=
apt_install() {
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
		say "cannot install $* here (needs root and apt-get)"
		return 1
	fi
	say "installing $* with apt-get"
	export DEBIAN_FRONTEND=noninteractive
	if [ -z "$apt_updated" ]; then
		apt-get update -qq >/dev/null || return 1
		apt_updated=1
	fi
	apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

install_packages() {
	local want=()
	command -v dockerd >/dev/null 2>&1 || want+=(docker.io)
	[ -x /bin/busybox ] && /bin/busybox --list >/dev/null 2>&1 && ! ldd /bin/busybox >/dev/null 2>&1 || want+=(busybox-static)
	# The git_repo tests serve repositories with git daemon and git http-backend.
	command -v git >/dev/null 2>&1 || want+=(git)
	[ ${#want[@]} -eq 0 ] && return 0
	apt_install "${want[@]}" || give_up "${want[*]} could not be installed"
}

# The storage-mount tests serve a bucket on 127.0.0.1 and mount it with
# rclone over FUSE, on this machine and in containers of the test image.
install_mount_tools() {
	local want=()
	command -v rclone >/dev/null 2>&1 || want+=(rclone)
	command -v fusermount3 >/dev/null 2>&1 || want+=(fuse3)
	[ ${#want[@]} -eq 0 ] && return 0
	apt_install "${want[@]}" && return 0
	if [ "${CI:-}" = "true" ]; then
		say "CI=true: the storage-mount tests cannot run without ${want[*]}; failing"
		exit 1
	fi
	say "the storage-mount tests will skip: ${want[*]} could not be installed"
}

start_daemon() { # start_daemon [dockerd flags...]: echoes the pid
	say "starting dockerd $* (log: $LOG)"
	nohup dockerd "$@" >>"$LOG" 2>&1 </dev/null &
	echo $!
}

# smoke: can this daemon run a container from the test image?
smoke() { docker run --rm --network none "$IMAGE" /bin/true >/dev/null 2>>"$LOG"; }

# IMAGE_VERSION changes whenever the image content below changes, so an
# image left by an earlier version of this script is rebuilt.
IMAGE_VERSION=5

# copy_with_libs <rootfs> <dir> <binary>...: copy each binary that exists on
# this machine into dir under rootfs, mode (setuid bit too) included, with
# the shared libraries ldd lists for it at their own paths.
copy_with_libs() {
	local rootfs=$1 dir=$2 bin lib
	shift 2
	mkdir -p "$rootfs$dir"
	for bin in "$@"; do
		[ -x "$bin" ] || continue
		cp -pL "$bin" "$rootfs$dir/"
		for lib in $(ldd "$bin" | awk '$2 == "=>" {print $3} $1 ~ /^\// {print $1}'); do
			mkdir -p "$rootfs$(dirname "$lib")"
			cp -L "$lib" "$rootfs$lib"
		done
	done
}

build_image() {
	# An image built while rclone or fusermount3 was missing carries another
	# label, so it is rebuilt once they are installed.
	local version=$IMAGE_VERSION rclone fusermount
	rclone=$(command -v rclone || true)
	fusermount=$(command -v fusermount3 || true)
	[ -n "$rclone" ] && [ -n "$fusermount" ] || version+=-without-rclone
	if [ "$(docker image inspect -f '{{index .Config.Labels "sandbox.test-image"}}' "$IMAGE" 2>/dev/null)" = "$version" ]; then
		return 0
	fi
	local bb rootfs
	bb=$(command -v busybox || echo /bin/busybox)
	[ -x "$bb" ] || give_up "no static busybox to build $IMAGE from (install busybox-static)"
	rootfs=$(mktemp -d)
	trap 'rm -rf "$rootfs"' RETURN
	mkdir -p "$rootfs"/{bin,sbin,usr/bin,usr/sbin,etc,tmp,root,var/www,home}
	chmod 1777 "$rootfs/tmp"
	cp "$bb" "$rootfs/bin/busybox"
	for applet in $("$bb" --list); do
		[ "$applet" = busybox ] || ln -sf busybox "$rootfs/bin/$applet"
	done
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$rootfs/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"
	printf 'root:*:19000:0:99999:7:::\n' >"$rootfs/etc/shadow"
	printf 'root:*::\nnogroup:*::\n' >"$rootfs/etc/gshadow"
	# The shadow account tools (groupadd, useradd, usermod), so that users
	# and groups can be provisioned as in a Debian image.
	copy_with_libs "$rootfs" /usr/sbin /usr/sbin/groupadd /usr/sbin/useradd /usr/sbin/usermod
	[ -f /etc/login.defs ] && cp /etc/login.defs "$rootfs/etc/login.defs"
	# rclone and fusermount3, so that a bucket can be mounted inside a
	# container as the in-container rclone pattern does. They live in
	# /usr/bin as on Debian, also reachable as /bin/fusermount3 and
	# fusermount (the names Debian's fuse3 provides); user_allow_other lets
	# a mount by a non-root user pass --allow-other.
	if [ -n "$rclone" ] && [ -n "$fusermount" ]; then
		copy_with_libs "$rootfs" /usr/bin "$rclone"
		cp -pL "$fusermount" "$rootfs/usr/bin/fusermount3"
		ln -s /usr/bin/fusermount3 "$rootfs/bin/fusermount3"
		ln -s fusermount3 "$rootfs/usr/bin/fusermount"
		printf 'user_allow_other\n' >"$rootfs/etc/fuse.conf"
	else
		say "rclone or fusermount3 is missing: $IMAGE is built without them, and the storage-mount tests in containers cannot run"
	fi
	say "building $IMAGE from a static busybox (FROM scratch, nothing pulled)"
	tar -C "$rootfs" --numeric-owner --owner=0 --group=0 -c . |
		docker import --change "LABEL sandbox.test-image=$version" --change 'ENV PATH=/usr/sbin:/usr/bin:/sbin:/bin' --change 'CMD ["/bin/sh"]' - "$IMAGE" >/dev/null
}

has_runsc() { docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q '"runsc"'; }

register_runsc() {
	has_runsc && return 0
	command -v runsc >/dev/null 2>&1 || apt_install runsc || { say "runsc could not be installed: the gVisor test will skip"; return 0; }
	local pid
	pid=$(pidof dockerd || true)
	if [ "$(id -u)" != 0 ] || [ -z "$pid" ] || [ -e /etc/docker/daemon.json ]; then
		say "the Docker daemon has no runsc runtime; register $(command -v runsc) as \"runsc\" with runtimeArgs --network=none and --file-access=shared (the gVisor test skips until then)"
		return 0
	fi
	mkdir -p /etc/docker
	printf '{"runtimes":{"runsc":{"path":"%s","runtimeArgs":["--network=none","--file-access=shared"]}}}\n' "$(command -v runsc)" >/etc/docker/daemon.json
	say "registering runsc with dockerd (pid $pid): /etc/docker/daemon.json, SIGHUP"
	kill -HUP "$pid"
	for _ in $(seq 1 20); do has_runsc && return 0; sleep 0.5; done
	say "dockerd did not pick up the runsc runtime; see $LOG"
}

install_mount_tools
if ! daemon_up; then
	install_packages
	command -v dockerd >/dev/null 2>&1 || give_up "dockerd is not installed"
	pid=$(start_daemon)
	if ! wait_daemon "$pid"; then
		kill "$pid" 2>/dev/null || true
		give_up "dockerd did not answer within 60 s; see $LOG"
	fi
	build_image
	if ! smoke; then
		say "the default storage driver cannot run containers here; restarting dockerd with --storage-driver=vfs"
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
		pid=$(start_daemon --storage-driver=vfs)
		wait_daemon "$pid" || give_up "dockerd --storage-driver=vfs did not answer; see $LOG"
	fi
fi
install_packages
build_image
smoke || give_up "the Docker daemon cannot run $IMAGE; see $LOG"
register_runsc
say "daemon ready: $(docker version --format '{{.Server.Version}} (API {{.Server.APIVersion}})'), storage driver $(docker info --format '{{.Driver}}'), image $IMAGE"
