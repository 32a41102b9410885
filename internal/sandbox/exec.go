package sandbox

import (
	"errors"
	"strconv"
	"time"
)

// ExecRequest is one command to run in a workspace (design/sdk-model.md §4.5, §6.2, §6.3).
type ExecRequest struct {
	// Argv is the command vector, run without a shell; callers wanting a
	// shell pass ["sh", "-lc", script] as the Python SDK does.
	Argv []string
	// User runs the command as this user; "" means the backend's default.
	// Backends that cannot switch users refuse a non-empty User.
	User string
	// WorkDir is the workspace-relative working directory ("" or "." for
	// the root), already checked with NormalizeSandboxCwd.
	WorkDir string
	// Env holds variables added to the command's environment; they win
	// over the backend's own.
	Env map[string]string
	// Timeout bounds the run; 0 means no limit. On expiry the whole
	// process group is killed and the error wraps ErrExecTimeout.
	Timeout time.Duration
}

// ErrExecTimeout is wrapped when a command outlived its timeout; the Python SDK's
// ExecTimeoutError ("command timed out").
var ErrExecTimeout = errors.New("command timed out")

// ErrNotStarted is wrapped by a *StartError: the command never ran.
var ErrNotStarted = errors.New("the command could not start")

// StartError is a command that the runtime could not start: its working
// directory is missing, its user unknown, or its program not found or not
// executable (the runtime's exit 126 or 127 with its own message, never
// the program's). It is not the command's result, so an accepted exit
// code never covers it.
type StartError struct {
	// Attr is what was wrong: "working_dir", "user" or "command".
	Attr string
	// Value is that attribute's value: the workspace-relative working
	// directory, the user, or the program.
	Value string
	// Detail is the runtime's own message (one line, bounded), or "".
	Detail string
}

func (e *StartError) Error() string {
	var s string
	switch e.Attr {
	case "working_dir":
		s = "working_dir " + strconv.Quote(e.Value) + " does not exist in the workspace"
	case "user":
		s = "user " + strconv.Quote(e.Value) + " is not one of the workspace's users nor an account of the workspace"
	default:
		s = "the program " + strconv.Quote(e.Value) + " could not be started (not found, or not executable)"
	}
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	return s
}

func (e *StartError) Unwrap() error { return ErrNotStarted }

// WriteResult reports what WriteFile stored.
type WriteResult struct {
	// Size is the number of bytes written.
	Size int64
	// SHA256 is the lower-case hex SHA-256 of the bytes written, computed
	// while streaming.
	SHA256 string
}
