// Package docker implements backend.Backend for a workspace inside a Docker
// container, following the Python SDK's Docker backend (design/sdk-model.md §6.2): the
// container runs `tail -f /dev/null` as its entrypoint so it stays up,
// exposed ports are published on 127.0.0.1 with ephemeral host ports, the
// workspace root is created at start and users and groups are provisioned
// with the image's own tools (design/sdk-model.md §4.1).
//
// # The in-container write path
//
// Every file operation (stat, mkdir, write, chmod, chgrp, hash, walk,
// remove) runs inside the container as one `docker exec` of a small static
// helper program (package fshelper), executed as root. The helper resolves
// workspace paths with the local backend's own code: openat2(2) with
// RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS below a descriptor of the root (or an
// O_NOFOLLOW walk on kernels without openat2). A symlink planted anywhere
// in the workspace, even one swapped in while a copy runs, is therefore
// never followed: the operation fails with an error wrapping
// backend.ErrEscapesRoot. No path is resolved by a shell, and the daemon's
// archive API (whose `docker cp` path resolution is racy) is never used for
// workspace content.
//
// Writes are one tar stream on the helper's stdin: one member per file
// (WriteFile) or per file batch (WriteFiles, which the engine uses for a
// whole local_dir copy). The helper streams each member into a temporary
// file beside its target while hashing it, checks the planned SHA-256,
// applies the mode with fchmod, syncs the filesystem once per batch, then
// renames every file into place; on any error nothing of the batch is
// renamed. Content is never held whole in memory on either side.
//
// # Where the helper comes from
//
// The helper is any statically linked Linux binary that links package
// fshelper; it switches to helper mode when run under the name
// "sandbox-fs-helper" (argv[0] re-exec, from fshelper's init). The release
// build of the provider is static (CGO_ENABLED=0), so by default the
// provider copies its own executable. When that is not usable — a binary
// built with cgo, a provider running on macOS, a test binary — the
// environment variable SANDBOX_FS_HELPER names the binary to copy instead,
// built with `CGO_ENABLED=0 GOOS=linux go build ./cmd/sandbox-fs-helper`
// (the acceptance tests build it themselves). It is copied once per
// container, through the archive API, to
// /.sandbox-fs-helper/<first 16 hex digits of its SHA-256>/sandbox-fs-helper,
// outside the workspace; the path changes with the binary, so a provider
// upgrade installs its own helper next to the old one. The helper must
// match the daemon's CPU architecture; a mismatch is reported as such.
//
// # Connection
//
// The daemon is found as the docker CLI finds it (DOCKER_HOST, including
// ssh:// through `ssh ... docker system dial-stdio`, DOCKER_CERT_PATH,
// DOCKER_TLS_VERIFY), overridable per provider (HostConfig). TLS always
// verifies the daemon: material without a CA certificate is an error.
package docker
