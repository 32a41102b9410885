// Package sandbox is the engine of the provider: the agent sandbox workspace
// model of the Python SDK (the Python SDK's agents.sandbox module) re-implemented
// in Go, byte for byte where the Python SDK defines the behaviour.
//
// It holds the value types (Permissions, User, Group, ExecResult,
// ExposedPortEndpoint, TreeDigest), the path rules that every workspace
// path goes through before any backend is touched (entry keys,
// resolve_workspace_path, the workspace path policy with extra path
// grants, the run working directory), and the structured errors with the
// Python SDK's error codes and reason codes. It touches no file: the
// manifest model lives in the manifest sub-package, and reading host files
// and the host side of the path rules in hostsource.
//
// The package knows nothing about Terraform: it never imports the
// terraform-plugin-* modules, so it can be tested and reused on its own.
// Workspace backends live in the backend sub-packages and receive only
// paths that this package has already validated.
package sandbox
