//go:build unix

package local

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

// Exec runs req.Argv as a host subprocess, as the Python SDK's unix-local backend
// (design/sdk-model.md §6.3), except that the environment is not the provider's whole
// own: only sandbox.ProcessEnv's allowlist of it, plus req.Env, with HOME
// the workspace root (Terraform's environment carries TF_VAR_* secrets,
// and a mount helper started here would keep them readable in its
// /proc/<pid>/environ), and the working directory is the root or req.WorkDir
// below it. The command runs in its own process group; on timeout or
// cancellation the whole group is killed with SIGKILL. A user cannot be
// switched on the host: a non-empty req.User is refused.
func (b *Backend) Exec(ctx context.Context, req backend.ExecRequest) (sandbox.ExecResult, error) {
	if len(req.Argv) == 0 {
		return sandbox.ExecResult{}, errors.New("exec: empty command")
	}
	if req.User != "" {
		return sandbox.ExecResult{}, fmt.Errorf("exec as user %q: the local backend runs commands as the provider's own user and cannot switch users", req.User)
	}
	dir := b.root
	if req.WorkDir != "" && req.WorkDir != "." {
		dir = filepath.Join(b.root, filepath.FromSlash(req.WorkDir))
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return sandbox.ExecResult{}, fmt.Errorf("exec: working directory %s does not exist in the workspace", dir)
	}
	runCtx := ctx
	var cancel context.CancelFunc
	if req.Timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, req.Timeout)
		defer cancel()
	}
	cmd := exec.Command(req.Argv[0], req.Argv[1:]...)
	cmd.Dir = dir
	set := maps.Clone(req.Env)
	if set == nil {
		set = map[string]string{}
	}
	set["HOME"] = b.root
	cmd.Env = sandbox.ProcessEnv(nil, set)
	stdout, stderr := &backend.CappedBuffer{Limit: backend.MaxOutputBytes}, &backend.CappedBuffer{Limit: backend.MaxOutputBytes}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return sandbox.ExecResult{}, fmt.Errorf("exec %s: %w", req.Argv[0], err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var waitErr error
	select {
	case waitErr = <-done:
	case <-runCtx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		killed := <-done
		if errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			return sandbox.ExecResult{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), ExitCode: -1},
				fmt.Errorf("%w after %s; its process group was killed (%w)", backend.ErrExecTimeout, req.Timeout.Round(time.Millisecond), killed)
		}
		return sandbox.ExecResult{}, fmt.Errorf("%w (%w)", ctx.Err(), killed)
	}
	res := sandbox.ExecResult{Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}
	var exitErr *exec.ExitError
	switch {
	case waitErr == nil:
	case errors.As(waitErr, &exitErr):
		res.ExitCode = exitErr.ExitCode()
	default:
		return res, fmt.Errorf("exec %s: %w", req.Argv[0], waitErr)
	}
	return res, backend.CheckOutput(stdout, stderr)
}
