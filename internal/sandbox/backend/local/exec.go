//go:build unix

package local

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/proctree"
)

// Exec runs req.Argv as a host subprocess, as the Python SDK's unix-local backend
// (design/sdk-model.md §6.3), except that the environment is not the provider's whole
// own: only sandbox.ProcessEnv's allowlist of it, plus req.Env, with HOME
// the workspace root (Terraform's environment carries TF_VAR_* secrets,
// and a mount helper started here would keep them readable in its
// /proc/<pid>/environ), and the working directory is the root or req.WorkDir
// below it. The command runs in its own process group; on timeout or
// cancellation the whole group is killed with SIGKILL, and on Linux every
// other process carrying the run's token (proctree.TokenEnv) too: those
// that moved to their own group or session. A user cannot be
// switched on the host: a non-empty req.User is refused. A missing working
// directory or a program that cannot be started fails with a
// *sandbox.StartError.
func (b *Backend) Exec(ctx context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error) {
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
		detail := "not a directory"
		if err != nil {
			detail = err.Error()
		}
		return sandbox.ExecResult{}, &sandbox.StartError{Attr: "working_dir", Value: path.Clean("./" + req.WorkDir), Detail: backend.StartDetail(detail)}
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
	// Every process of the run inherits the token, so a timeout finds
	// (on Linux) those that left the process group too.
	token := proctree.TokenEnv + "=" + uuid.NewString()
	set[proctree.TokenEnv] = strings.TrimPrefix(token, proctree.TokenEnv+"=")
	cmd.Env = sandbox.ProcessEnv(nil, set)
	stdout, stderr := &backend.CappedBuffer{Limit: backend.MaxOutputBytes}, &backend.CappedBuffer{Limit: backend.MaxOutputBytes}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return sandbox.ExecResult{}, &sandbox.StartError{Attr: "command", Value: req.Argv[0], Detail: backend.StartDetail(err.Error())}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var waitErr error
	select {
	case waitErr = <-done:
	case <-runCtx.Done():
		what := killTree(cmd.Process.Pid, token)
		killed := <-done
		if errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			return sandbox.ExecResult{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), ExitCode: -1},
				fmt.Errorf("%w after %s; every process it started was killed: %s (%w)", sandbox.ErrExecTimeout,
					req.Timeout.Round(time.Millisecond), what, killed)
		}
		return sandbox.ExecResult{}, fmt.Errorf("%w; every process the command started was killed: %s (%w)", ctx.Err(), what, killed)
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

// killTree kills the process group of pid and every process carrying
// token, and says what it killed.
func killTree(pid int, token string) string {
	procs, _ := proctree.KillByEnv(token)
	n := len(procs)
	seen := map[int]bool{}
	for _, p := range procs {
		seen[p.Pid] = true
	}
	if !seen[pid] {
		// The leader itself (no /proc to scan, or already a zombie).
		procs = append(procs, proctree.Proc{Pid: pid, Name: procName(pid)})
		n++
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	return proctree.Describe(n, procs)
}

// procName is the name of pid where /proc tells it, else "?".
func procName(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return "?"
	}
	return proctree.Clean(string(b))
}
