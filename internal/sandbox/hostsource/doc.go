// Package hostsource reads host files and trees safely for the engine: the
// Python SDK's LocalFile and LocalDir rules (Policy: confinement to the
// base directory and the extra path grants, no symlink followed, pinned
// no-follow opens, checksums while reading) and the host side of the path
// rules (ResolveGrantRoot, ResolveWorkspacePath). It holds the engine's
// host file system calls, so that the core package sandbox has none.
package hostsource
