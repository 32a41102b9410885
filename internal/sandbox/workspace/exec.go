package workspace

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/local"
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
	// A container has the workspace environment as its own; a local
	// workspace's is in its marker.
	env := maps.Clone(w.Environment)
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

// SetEnvironment replaces the environment of local workspace id (a docker
// workspace's is fixed when its container is created).
func (e *Engine) SetEnvironment(ctx context.Context, id string, env map[string]string) error {
	w, err := e.Open(ctx, id)
	if err != nil {
		return err
	}
	if w.Kind != local.Kind {
		return nil
	}
	m := local.Marker{ID: w.UUID, Environment: env}
	err = local.UpdateMarker(w.Root, m)
	if errors.Is(err, local.ErrNoMarker) && e.legacyRoot(Ref{Kind: local.Kind, UUID: w.UUID, Root: w.Root}) {
		err = local.ClaimMarker(w.Root, m) // a root from before markers gets its own now
	}
	return err
}
