package workspace

import (
	"context"
	"fmt"
	"maps"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

// ShellArgv is the seed's shell command shaping (SPEC §4.5): a script runs
// as ["sh", "-lc", script].
func ShellArgv(script string) []string { return []string{"sh", "-lc", script} }

// Exec runs req in workspace id with the workspace's environment underneath
// req.Env. A non-zero exit is returned in the result, not as an error.
func (e *Engine) Exec(ctx context.Context, id string, req backend.ExecRequest) (sandbox.ExecResult, error) {
	w, err := e.Open(ctx, id)
	if err != nil {
		return sandbox.ExecResult{}, err
	}
	rec, err := e.registry.Get(id)
	if err != nil {
		return sandbox.ExecResult{}, err
	}
	env := maps.Clone(rec.Environment)
	if env == nil {
		env = map[string]string{}
	}
	maps.Copy(env, req.Env)
	req.Env = env
	if req.WorkDir != "" {
		if req.WorkDir, err = sandbox.NormalizeSandboxCwd(req.WorkDir); err != nil {
			return sandbox.ExecResult{}, err
		}
	}
	res, err := w.Backend.Exec(ctx, req)
	if err != nil {
		return res, fmt.Errorf("running %q in workspace %s: %w", req.Argv, id, err)
	}
	return res, nil
}

// SetEnvironment replaces the environment recorded for workspace id.
func (e *Engine) SetEnvironment(id string, env map[string]string) error {
	rec, err := e.registry.Get(id)
	if err != nil {
		return err
	}
	rec.Environment = env
	return e.registry.Put(rec)
}
