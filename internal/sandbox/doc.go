// Package sandbox is the core of the engine: the agent sandbox workspace
// model of the Python SDK (its agents.sandbox module) that every other
// package speaks, re-implemented in Go byte for byte where the Python SDK
// defines the behaviour.
//
// It holds the model's value types (User, Group and the rules for their
// names, a command to run and its ExecResult, ExposedPortEndpoint, a
// workspace's lifetime), the structured errors with the Python SDK's error
// and reason codes, the bounds on what comes out of a workspace
// (OutputLimits), and the shell quoting and process environment commands
// are run with. It does no I/O.
//
// The rules built on it live in sub-packages: posix (workspace paths,
// permissions and path grants), checksum (file and tree digests), redact
// (secrets kept out of output), progress (progress of long copies),
// manifest (the manifest model), hostsource (reading host files), spec (a
// workspace's declared form, one type per backend), the backends under
// backend/, and workspace, the engine the provider calls.
//
// No package under internal/sandbox imports the terraform-plugin-* modules,
// so the engine can be tested and reused on its own.
package sandbox
