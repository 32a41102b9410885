// Package posix holds the Python SDK's rules for workspace paths and file
// permissions, which every path goes through before any backend is touched:
// POSIX path forms as pathlib builds them, entry keys and names,
// resolve_workspace_path, the workspace path policy with extra path grants,
// the run working directory, and permissions in their string and octal
// forms. It does no I/O; the host side of the path rules is in hostsource.
package posix
