package workspace

import (
	"context"
	"fmt"
	"maps"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// ShellArgv is the Python SDK's shell command shaping (design/sdk-model.md §4.5): a script runs
// as ["sh", "-lc", script].
func ShellArgv(script string) []string { return []string{"sh", "-lc", script} }

// Exec runs req in the workspace with the workspace's environment
// underneath req.Env. A non-zero exit is returned in the result, not as an
// error.
func (w *Workspace) Exec(ctx context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error) {
	// A container has the workspace environment as its own; a local
	// workspace's is in its marker.
	env := maps.Clone(w.Environment)
	if env == nil {
		env = map[string]string{}
	}
	maps.Copy(env, req.Env)
	req.Env = env
	if req.WorkDir != "" {
		var err error
		if req.WorkDir, err = posix.NormalizeSandboxCwd(req.WorkDir); err != nil {
			return sandbox.ExecResult{}, err
		}
	}
	res, err := w.Backend.Exec(ctx, req)
	if err != nil {
		return res, fmt.Errorf("running %q in workspace %s: %w", req.Argv, w.ID, err)
	}
	return res, nil
}

// SetEnvironment replaces the environment of the workspace where it can
// change in place (a local workspace's; a container's is fixed when it is
// created).
func (w *Workspace) SetEnvironment(ctx context.Context, env map[string]string) error {
	return w.drv.setEnvironment(ctx, w, env)
}
