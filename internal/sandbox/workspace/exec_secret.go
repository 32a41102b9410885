package workspace

import (
	"context"
	"maps"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/redact"
)

// SecretExec is the outcome of ExecSecret: the output as the command
// printed it, and the secrets the caller must keep out of anything it
// stores or shows.
type SecretExec struct {
	sandbox.ExecResult
	// Secrets holds the values of the secret environment given and of the
	// workspace's own (a docker workspace's DockerSpec.SecretEnvironment).
	Secrets redact.Secrets
}

// ExecSecret runs req as Exec does, with secretEnv added to its environment
// over req.Env. The error, if any, has the secrets redacted already and
// still matches ErrExecTimeout, ErrWorkspaceGone and ErrWorkspaceStopped;
// the result's Secrets are set even then.
func (w *Workspace) ExecSecret(ctx context.Context, req sandbox.ExecRequest, secretEnv map[string]string) (SecretExec, error) {
	secrets := envSecrets(secretEnv)
	values, err := w.drv.secretEnvironment(ctx, w)
	if err != nil {
		return SecretExec{Secrets: secrets}, secrets.Error(err, ErrWorkspaceStopped)
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
	res, err := w.Exec(ctx, req)
	return SecretExec{ExecResult: res, Secrets: secrets}, secrets.Error(err, sandbox.ErrExecTimeout, ErrWorkspaceGone, ErrWorkspaceStopped)
}

// envSecrets is the set of the values of env.
func envSecrets(env map[string]string) redact.Secrets {
	values := make([]string, 0, len(env))
	for _, v := range env {
		values = append(values, v)
	}
	return redact.NewSecrets(values...)
}
