package workspace

import (
	"context"
	"maps"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

// ExecSecret runs req as Exec does, with secretEnv added to its environment
// over req.Env. It returns the output as the command printed it, together
// with the secrets the caller must keep out of anything it stores or shows:
// the values of secretEnv and of the workspace's own secret environment (a
// docker workspace's DockerSpec.SecretEnvironment). The error, if any, has
// them redacted already and still matches backend.ErrExecTimeout and
// ErrWorkspaceGone.
func (e *Engine) ExecSecret(ctx context.Context, id string, req backend.ExecRequest, secretEnv map[string]string) (sandbox.ExecResult, sandbox.Secrets, error) {
	secrets := envSecrets(secretEnv)
	w, err := e.Open(ctx, id)
	if err != nil {
		return sandbox.ExecResult{}, secrets, secrets.Error(err, ErrWorkspaceGone)
	}
	values, err := w.drv.secretEnvironment(ctx, w)
	if err != nil {
		return sandbox.ExecResult{}, secrets, secrets.Error(err, ErrWorkspaceStopped)
	}
	secrets = secrets.With(values...)
	if len(secretEnv) > 0 {
		env := maps.Clone(req.Env)
		if env == nil {
			env = map[string]string{}
		}
		maps.Copy(env, secretEnv)
		req.Env = env
	}
	res, err := e.Exec(ctx, id, req)
	return res, secrets, secrets.Error(err, backend.ErrExecTimeout, ErrWorkspaceGone, ErrWorkspaceStopped)
}

// envSecrets is the set of the values of env.
func envSecrets(env map[string]string) sandbox.Secrets {
	values := make([]string, 0, len(env))
	for _, v := range env {
		values = append(values, v)
	}
	return sandbox.NewSecrets(values...)
}
