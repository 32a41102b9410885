// Package incontainer implements the file operations of backend.Backend for
// a workspace inside a container that the provider reaches only by starting
// processes in it: `docker exec` for a Docker container, the exec API of a
// Kubernetes pod. A workspace kind supplies a Runner (how to run one
// process in its container) and gets a Workspace that does the rest.
//
// # The in-container write path
//
// Every file operation (stat, mkdir, write, chmod, chgrp, chown, hash,
// walk, remove) runs inside the container as one process: a small static
// helper program (package fshelper), executed as root. The helper resolves
// workspace paths with the local backend's own code: openat2(2) with
// RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS below a descriptor of the root (or an
// O_NOFOLLOW walk on kernels without openat2). A symlink planted anywhere
// in the workspace, even one swapped in while a copy runs, is therefore
// never followed: the operation fails with an error wrapping
// backend.ErrEscapesRoot. No path is resolved by a shell, and no archive
// API of the container runtime (whose `docker cp` path resolution is racy)
// is used for workspace content.
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
// "sandbox-fs-helper". The release build of the provider is static
// (CGO_ENABLED=0), so by default the provider copies its own executable.
// When that is not usable — a binary built with cgo, a provider running on
// macOS, a test binary — the environment variable SANDBOX_FS_HELPER names
// the binary to copy instead, built with `CGO_ENABLED=0 GOOS=linux go build
// ./cmd/sandbox-fs-helper`. It is copied once per container to
// /.sandbox-fs-helper/<first 16 hex digits of its SHA-256>/sandbox-fs-helper,
// outside the workspace, either by the Runner's own means (Installer) or
// streamed on the stdin of a shell in the container; the path changes with
// the binary, so a provider upgrade installs its own helper next to the old
// one.
package incontainer
