package incontainer

import (
	"context"
	"io"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// Proc is one process to run in the container.
type Proc struct {
	// Argv is the program and its arguments (no shell).
	Argv []string
	// User runs the process as this user: a name known to the container or
	// "uid:gid"; "" leaves the container's default user.
	User string
	// WorkDir is the absolute working directory; "" leaves the default.
	WorkDir string
	// Env holds "NAME=value" entries added to the container's environment.
	Env []string
	// Stdin, when set, is streamed to the process and then half-closed.
	Stdin io.Reader
	// Limit caps the bytes kept per output stream; 0 keeps everything.
	Limit int
	// Strict, with Limit, stops reading at once when a stream exceeds
	// Limit: Run fails with an error wrapping backend.ErrOutputTooLarge
	// instead of draining and dropping the rest.
	Strict bool
	// Out, when set, receives stdout as it streams instead of memory.
	Out io.Writer
	// Complete, when set, says from the whole stdout (Out unset) that the
	// process finished its work and exited 0 (a full file helper
	// response), so a Runner for which the exit status costs one more
	// round trip may skip reading it and report ExitCode 0.
	Complete func(stdout []byte) bool
}

// Runner runs processes in one container.
type Runner interface {
	// Run runs p and waits for it. A non-zero exit is not an error; a
	// container that is not running gives an error wrapping
	// backend.ErrStopped. Cancelling ctx abandons the process.
	Run(ctx context.Context, p Proc) (sandbox.ExecResult, error)
	// Name names the container in errors ("container 0123abcd4567").
	Name() string
}

// Installer is implemented by a Runner that can copy the helper into its
// container by its own means (Docker's archive API), tried before
// streaming it through a shell.
type Installer interface {
	InstallHelper(ctx context.Context, h Helper) error
}

// Hooks are what a workspace kind adds to the common operations; every
// field may be nil.
type Hooks struct {
	// Start starts a stopped container before an operation that changes
	// the workspace (a plan, which only reads, never starts anything).
	Start func(ctx context.Context) error
	// MemoryLimited reports whether the container has a memory limit, so
	// that an exit by SIGKILL can be told apart as the out-of-memory killer.
	MemoryLimited func(ctx context.Context) bool
	// ExplainBroken returns why the installed helper may not run (an
	// architecture mismatch, a process limit), or "".
	ExplainBroken func(ctx context.Context, h Helper) string
	// Protected returns the path of the container's own copy of the
	// helper that the agent cannot change (read-only, root-owned, on a
	// mount the container cannot undo), checked from the container
	// runtime's own description of the container; "" when the container
	// has none (made by an earlier provider version): the helper is then
	// installed into it as before, and trusted no further than its
	// answers. An error means the container's helper must not be used.
	// When Protected returns a path, nothing is ever installed.
	Protected func(ctx context.Context, h Helper) (string, error)
	// Ran, when set, is called after each command Exec ran (whatever its
	// outcome): a command may have stopped or changed the container, so
	// recent lookups of it are not to be reused.
	Ran func()
}
