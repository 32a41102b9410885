package mount

import (
	"context"
	"errors"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// Applied is what applying a mount left in the workspace, in creation order.
// It is filled as the work goes, so it is meaningful even when Apply fails
// part-way: whatever is listed exists and must be cleaned up.
type Applied struct {
	// PersistSkipPaths are root-relative directories holding generated
	// helper files (rclone configs, mount-s3 env files, blobfuse2 configs
	// and caches), to leave out of workspace snapshots. Follows the Python SDK's
	// register_persist_workspace_skip_path calls.
	PersistSkipPaths []string
	// RemoteName is the rclone remote of an rclone mount, "" otherwise;
	// unmounting needs it to stop the rclone processes.
	RemoteName string
	// GeneratedPaths are the absolute paths of the files and directories
	// the mount's helpers created (configs, env files, command output files,
	// the default blobfuse2 cache), which destroying the mount removes
	// (rm -rf). The mount point itself is not listed.
	GeneratedPaths []string
	// Warnings are non-fatal findings, such as an NFS client the kernel does
	// not announce; the Python SDK emits them as Python warnings.
	Warnings []string
}

// NewToolMissingError is the Python SDK's MountToolMissingError: Code
// sandbox.CodeMountMissingTool, Op "materialize", not retryable, message
// "required mount tool missing: <tool>", Context {"tool": tool} plus ctx.
func NewToolMissingError(tool string, ctx map[string]any) *sandbox.Error {
	c := map[string]any{"tool": tool}
	for k, v := range ctx {
		c[k] = v
	}
	no := false
	return &sandbox.Error{Code: sandbox.CodeMountMissingTool, Op: "materialize",
		Message: "required mount tool missing: " + tool, Context: c, Retryable: &no}
}

// NewCommandError is the Python SDK's MountCommandError: Code
// sandbox.CodeMountFailed, Op "materialize", not retryable, message "mount
// command failed", Context {"command": command, "stderr": stderr} plus ctx.
func NewCommandError(command, stderr string, ctx map[string]any) *sandbox.Error {
	c := map[string]any{"command": command, "stderr": stderr}
	for k, v := range ctx {
		c[k] = v
	}
	no := false
	return &sandbox.Error{Code: sandbox.CodeMountFailed, Op: "materialize", Message: "mount command failed",
		Context: c, Retryable: &no}
}

// protectedOperationMessage replaces the message of an error raised while a
// mount carrying credentials was handled (the Python SDK's text).
const protectedOperationMessage = "sandbox operation failed while using a protected mount configuration"

// protectedConfigErrorMessage replaces the message of a MountConfigError raised
// while a mount carrying credentials was handled.
const protectedConfigErrorMessage = "sandbox mount configuration is invalid"

// protectMountError is the Python SDK's replacement of an error raised in a call that
// handled mount authority (design/sdk-model.md §5.7): a MountConfigError keeps its code and
// gets "sandbox mount configuration is invalid"; any other structured error
// keeps code, op and retryable but gets protectedOperationMessage and an
// empty context; anything else becomes a plain error with that message. The
// cause is dropped. The general redaction helpers may take this over.
func protectMountError(err error) error {
	if err == nil {
		return nil
	}
	var se *sandbox.Error
	if !errors.As(err, &se) {
		return errors.New(protectedOperationMessage)
	}
	if se.Code == sandbox.CodeMountMissingTool {
		// "required mount tool missing: <tool>" names a tool, never a
		// value: it is kept so the user learns what the sandbox lacks (the
		// Python SDK's wrapper would replace it too).
		return err
	}
	msg := protectedOperationMessage
	if se.Code == sandbox.CodeMountConfigInvalid {
		msg = protectedConfigErrorMessage
	}
	return &sandbox.Error{Code: se.Code, Op: se.Op, Message: msg, Context: map[string]any{}, Retryable: se.Retryable}
}

// runner runs one mount's helper steps in a session and records what they
// leave behind.
type runner struct {
	ctx  context.Context
	s    Session
	root string
	out  *Applied
}

func newRunner(ctx context.Context, s Session, out *Applied) *runner {
	return &runner{ctx: ctx, s: s, root: posix.CoercePosix(s.Root()), out: out}
}

// abs is the absolute form of a root-relative or absolute path (the Python SDK's
// session.normalize_path, lexically).
func (r *runner) abs(p string) string { return posix.JoinPosix(r.root, posix.PurePosix(p)) }

func (r *runner) exec(argv ...string) (ExecResult, error) { return r.s.Exec(r.ctx, argv) }

// shell runs cmd through "sh -lc", as the Python SDK's exec(cmd) and its explicit
// ("sh", "-lc", cmd) calls do.
func (r *runner) shell(cmd string) (ExecResult, error) { return r.exec("sh", "-lc", cmd) }

// probe runs a tool check; a non-zero exit is NewToolMissingError(tool).
func (r *runner) probe(cmd, tool string, ctx map[string]any) error {
	res, err := r.shell(cmd)
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return NewToolMissingError(tool, ctx)
	}
	return nil
}

// checked runs argv and turns a non-zero exit into the Python SDK's
// ExecNonZeroError (its session.mkdir and _exec_checked_nonzero).
func (r *runner) checked(argv ...string) error {
	res, err := r.exec(argv...)
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return sandbox.NewExecNonZeroError(argv, sandbox.ExecResult{Stdout: res.Stdout, Stderr: res.Stderr, ExitCode: res.ExitCode})
	}
	return nil
}

func (r *runner) mkdir(abs string) error { return r.checked("mkdir", "-p", abs) }

func (r *runner) skip(rel string) { r.out.PersistSkipPaths = append(r.out.PersistSkipPaths, rel) }

func (r *runner) generated(abs ...string) {
	r.out.GeneratedPaths = append(r.out.GeneratedPaths, abs...)
}

// writeSensitive writes a generated helper file owner-only, then runs
// chmod 0600 on it as the Python SDK's _write_sensitive_config_file does.
func (r *runner) writeSensitive(rel string, content string) error {
	abs := r.abs(rel)
	r.generated(abs)
	if err := r.s.WriteFile(r.ctx, rel, []byte(content)); err != nil {
		return err
	}
	return r.checked("chmod", "0600", abs)
}

// commandFailed builds the NewCommandError for a failed command result.
func commandFailed(command string, res ExecResult, ctx map[string]any) *sandbox.Error {
	return NewCommandError(command, sandbox.DecodeUTF8Replace(res.Stderr), ctx)
}

// spaceJoin is Python's " ".join(cmd), the Python SDK's command text in errors.
func spaceJoin(argv []string) string { return strings.Join(argv, " ") }

// requireSession returns the session's hex id or the Python SDK's "mount session
// is missing session_id" error.
func requireSession(sessionID, mountType string) (string, error) {
	if sessionID == "" {
		return "", NewConfigError("mount session is missing session_id", map[string]any{"type": mountType})
	}
	return SessionHex(sessionID), nil
}
