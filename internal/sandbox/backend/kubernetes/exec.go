package kubernetes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/remotecommand"
	utilexec "k8s.io/client-go/util/exec"
	"k8s.io/streaming/pkg/httpstream"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/incontainer"
)

// podRunner runs processes in one container of one pod through the API
// server's exec subresource: the workspace container, or the helper
// container while it fills the helper volume. The container is always
// named, as a pod has two.
type podRunner struct {
	c         *Cluster
	ns, name  string
	container string
	ws        *incontainer.Workspace // for the helper's path, set by Open
}

// Name implements incontainer.Runner.
func (r *podRunner) Name() string {
	if r.container != containerName {
		return "pod " + r.ns + "/" + r.name + " (container " + r.container + ")"
	}
	return "pod " + r.ns + "/" + r.name
}

// asRoot reports whether p runs as the container's own user (root in a
// workspace pod) with nothing else to set, so the exec API takes it as is.
func asRoot(p incontainer.Proc) bool {
	switch p.User {
	case "", "0", "0:0", "root":
		return p.WorkDir == "" && len(p.Env) == 0
	}
	return false
}

// Run implements incontainer.Runner. A process with a user, a working
// directory or an environment runs through the helper's run operation.
func (r *podRunner) Run(ctx context.Context, p incontainer.Proc) (sandbox.ExecResult, error) {
	argv := p.Argv
	if !asRoot(p) {
		hp, err := r.ws.HelperPath(ctx)
		if err != nil {
			return sandbox.ExecResult{}, err
		}
		env, err := json.Marshal(append([]string{}, p.Env...))
		if err != nil {
			return sandbox.ExecResult{}, err
		}
		argv = append([]string{hp, fshelper.OpRun, p.User, p.WorkDir, string(env)}, p.Argv...)
	}
	select {
	case r.c.execs <- struct{}{}:
		defer func() { <-r.c.execs }()
	case <-ctx.Done():
		return sandbox.ExecResult{}, ctx.Err()
	}
	stdout, stderr := &backend.CappedBuffer{Limit: p.Limit, Strict: p.Strict}, &backend.CappedBuffer{Limit: p.Limit, Strict: p.Strict}
	var out io.Writer = stdout
	if p.Out != nil {
		out = p.Out
	}
	err := r.stream(ctx, argv, p.Stdin, out, stderr)
	res := sandbox.ExecResult{Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}
	var exit utilexec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitStatus()
	case ctx.Err() != nil:
		return sandbox.ExecResult{}, ctx.Err()
	case errors.Is(err, backend.ErrOutputTooLarge):
		return sandbox.ExecResult{}, err
	default:
		return sandbox.ExecResult{}, r.execError(ctx, argv[0], err)
	}
	return res, backend.CheckOutput(stdout, stderr)
}

func (r *podRunner) stream(ctx context.Context, argv []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cs, rc, err := r.c.client()
	if err != nil {
		return err
	}
	req := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(r.ns).Name(r.name).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{
			Container: r.container, Command: argv, Stdin: stdin != nil, Stdout: true, Stderr: true,
		}, scheme.ParameterCodec)
	ws, err := remotecommand.NewWebSocketExecutor(rc, "GET", req.URL().String())
	if err != nil {
		return err
	}
	spdy, err := remotecommand.NewSPDYExecutor(rc, "POST", req.URL())
	if err != nil {
		return err
	}
	ex, err := remotecommand.NewFallbackExecutor(ws, spdy, func(err error) bool {
		return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
	})
	if err != nil {
		return err
	}
	return ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdin: stdin, Stdout: stdout, Stderr: stderr})
}

// execError explains an exec that could not run: a pod that no longer
// runs wraps backend.ErrStopped.
func (r *podRunner) execError(ctx context.Context, prog string, err error) error {
	if p, found, lerr := r.c.Lookup(ctx, r.ns, r.name); lerr == nil && (!found || p.Gone || !p.Running) {
		why := "it no longer exists"
		if found {
			why = "it does not run"
			if p.Reason != "" {
				why += " (" + p.Reason + ")"
			}
		}
		return fmt.Errorf("exec %s in %s: %w: %s", prog, r.Name(), backend.ErrStopped, why)
	}
	msg := err.Error()
	if strings.Contains(msg, "forbidden") {
		msg += " (the provider needs create on pods/exec in namespace " + r.ns + ")"
	}
	return fmt.Errorf("exec %s in %s: %s", prog, r.Name(), msg)
}
