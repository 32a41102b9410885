package incontainer

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/proctree"
)

// Exec runs a command in the container as the Python SDK's Docker backend
// does: its output captured, the working directory the workspace root (or
// req.WorkDir below it), the user passed to the container runtime, and
// fshelper.ExecTokenEnv set to a value unique to the run. On timeout, and
// when ctx expires or is cancelled first, the file helper kills, as root,
// every process carrying that token (the command and everything it
// started); the error wraps sandbox.ErrExecTimeout ("command timed out")
// for the run's own timeout, else ctx's error, and names what was killed.
// A command the runtime could not start (a missing working directory, an
// unknown user, a program not found) fails with a *sandbox.StartError.
func (w *Workspace) Exec(ctx context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error) {
	if len(req.Argv) == 0 {
		return sandbox.ExecResult{}, errors.New("exec: empty command")
	}
	workdir := w.root
	if req.WorkDir != "" && req.WorkDir != "." {
		workdir = strings.TrimSuffix(w.root, "/") + "/" + req.WorkDir
	}
	env := make([]string, 0, len(req.Env)+1)
	for k, v := range req.Env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	token := uuid.NewString()
	env = append(env, fshelper.ExecTokenEnv+"="+token)
	runCtx := ctx
	if req.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, req.Timeout)
		defer cancel()
	}
	// In a memory-limited container, the out-of-memory killer's count
	// before and after tells an exit by SIGKILL (137) at the limit apart.
	var oomBefore int64 = -1
	if w.hooks.MemoryLimited != nil && w.hooks.MemoryLimited(ctx) {
		if n, err := w.OOMKills(ctx); err == nil {
			oomBefore = n
		}
	}
	res, err := w.r.Run(runCtx, Proc{Argv: req.Argv, User: req.User, WorkDir: workdir, Env: env, Limit: backend.MaxOutputBytes})
	if w.hooks.Ran != nil {
		w.hooks.Ran()
	}
	if err == nil {
		if serr := startFailure(req, res); serr != nil {
			return res, serr
		}
	}
	if err == nil && res.ExitCode == 137 && oomBefore >= 0 {
		if n, oerr := w.OOMKills(ctx); oerr == nil && n > oomBefore {
			res.OOMKilled = true
		}
	}
	if err != nil && runCtx.Err() != nil {
		// The run's timeout, or the caller's deadline or cancellation:
		// closing the connection does not stop a process in the container,
		// so kill every process the command started. They all inherit the
		// run's token, whatever process group or session they moved to.
		killCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		resp, kerr := w.helper(killCtx, fshelper.OpKillEnv, ".", token, nil)
		what := proctree.Describe(int(resp.Size), resp.Killed)
		if ctx.Err() != nil {
			if kerr != nil {
				return sandbox.ExecResult{ExitCode: -1}, fmt.Errorf("%w; killing the command's processes failed: %w", ctx.Err(), kerr)
			}
			return sandbox.ExecResult{ExitCode: -1}, fmt.Errorf("%w; every process the command started was killed: %s", ctx.Err(), what)
		}
		if kerr != nil {
			return sandbox.ExecResult{ExitCode: -1}, fmt.Errorf("%w after %s; killing its processes failed: %w",
				sandbox.ErrExecTimeout, req.Timeout.Round(time.Millisecond), kerr)
		}
		return sandbox.ExecResult{ExitCode: -1}, fmt.Errorf("%w after %s; every process it started was killed: %s",
			sandbox.ErrExecTimeout, req.Timeout.Round(time.Millisecond), what)
	}
	return res, err
}
