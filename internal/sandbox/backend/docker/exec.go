package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/google/uuid"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/fshelper"
)

// execSpec is one `docker exec`.
type execSpec struct {
	argv    []string
	user    string
	workdir string
	env     []string
	stdin   io.Reader // nil: no stdin
	limit   int       // bytes kept per output stream; 0 keeps everything
	out     io.Writer // when set, stdout streams here instead of into memory
}

// run executes spec in the container and waits for it: stdout and stderr
// are demultiplexed into memory, stdin (when set) is streamed and then
// half-closed. A failure to read stdin aborts the command (its stdin is
// closed early) and is returned in preference to the command's own result.
// Cancelling ctx closes the connection.
func (d *Daemon) run(ctx context.Context, containerID string, spec execSpec) (sandbox.ExecResult, error) {
	cli, err := d.api()
	if err != nil {
		return sandbox.ExecResult{}, err
	}
	created, err := cli.ExecCreate(ctx, containerID, client.ExecCreateOptions{
		User: spec.user, WorkingDir: spec.workdir, Env: spec.env, Cmd: spec.argv,
		AttachStdin: spec.stdin != nil, AttachStdout: true, AttachStderr: true,
	})
	if err != nil {
		if cerrdefs.IsConflict(err) || strings.Contains(err.Error(), "is not running") || strings.Contains(err.Error(), "is paused") {
			err = fmt.Errorf("%w: %w", backend.ErrStopped, err)
		}
		return sandbox.ExecResult{}, fmt.Errorf("exec %s in container %s: %w", spec.argv[0], short(containerID), err)
	}
	att, err := cli.ExecAttach(ctx, created.ID, client.ExecAttachOptions{})
	if err != nil {
		return sandbox.ExecResult{}, fmt.Errorf("exec %s in container %s: %w", spec.argv[0], short(containerID), err)
	}
	defer att.Close()
	stop := context.AfterFunc(ctx, att.Close)
	defer stop()

	stdinErr := make(chan error, 1)
	if spec.stdin != nil {
		go func() {
			_, err := io.Copy(att.Conn, spec.stdin)
			cerr := att.CloseWrite()
			if err == nil {
				err = cerr
			}
			stdinErr <- err
		}()
	} else {
		stdinErr <- nil
	}
	stdout, stderr := &backend.CappedBuffer{Limit: spec.limit}, &backend.CappedBuffer{Limit: spec.limit}
	var outW io.Writer = stdout
	if spec.out != nil {
		outW = spec.out
	}
	_, copyErr := stdcopy.StdCopy(outW, stderr, att.Reader)
	var inErr error
	select {
	case inErr = <-stdinErr:
	case <-ctx.Done():
	}
	if err := ctx.Err(); err != nil {
		return sandbox.ExecResult{}, err
	}
	if inErr != nil && !isBrokenPipe(inErr) {
		return sandbox.ExecResult{}, inErr
	}
	if copyErr != nil {
		return sandbox.ExecResult{}, fmt.Errorf("exec %s: reading output: %w", spec.argv[0], copyErr)
	}
	res := sandbox.ExecResult{Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}
	for i := 0; ; i++ {
		ins, err := cli.ExecInspect(ctx, created.ID, client.ExecInspectOptions{})
		if err != nil {
			return res, fmt.Errorf("exec %s: reading the exit code: %w", spec.argv[0], err)
		}
		if !ins.Running {
			res.ExitCode = ins.ExitCode
			return res, backend.CheckOutput(stdout, stderr)
		}
		if i > 100 {
			return res, fmt.Errorf("exec %s: missing_exit_code: the command still runs after its output closed", spec.argv[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func isBrokenPipe(err error) bool {
	s := err.Error()
	return strings.Contains(s, "broken pipe") || strings.Contains(s, "use of closed network connection")
}

// Exec runs a command in the container as the Python SDK's Docker backend does
// (design/sdk-model.md §6.2): `docker exec` with the output demultiplexed, the working
// directory the workspace root (or req.WorkDir below it), the user passed
// natively to the daemon ("" is the image's user) and req.Env added, plus
// fshelper.ExecTokenEnv set to a value unique to the run. On timeout the
// file helper kills, as root, every process carrying that token (the
// command and everything it started), and the error wraps
// backend.ErrExecTimeout ("command timed out").
func (b *Backend) Exec(ctx context.Context, req backend.ExecRequest) (sandbox.ExecResult, error) {
	if len(req.Argv) == 0 {
		return sandbox.ExecResult{}, errors.New("exec: empty command")
	}
	workdir := b.root
	if req.WorkDir != "" && req.WorkDir != "." {
		workdir = strings.TrimSuffix(b.root, "/") + "/" + req.WorkDir
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
	if b.d.memoryLimited(ctx, b.id) {
		if n, err := b.oomKills(ctx); err == nil {
			oomBefore = n
		}
	}
	res, err := b.d.run(runCtx, b.id, execSpec{argv: req.Argv, user: req.User, workdir: workdir, env: env, limit: backend.MaxOutputBytes})
	if err == nil && res.ExitCode == 137 && oomBefore >= 0 {
		if n, oerr := b.oomKills(ctx); oerr == nil && n > oomBefore {
			res.OOMKilled = true
		}
	}
	if err != nil && errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		// Kill every process the command started: they all inherit the
		// run's token, whatever process group or session they moved to.
		killCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if _, kerr := b.helper(killCtx, fshelper.OpKillEnv, ".", token, nil); kerr != nil {
			return sandbox.ExecResult{ExitCode: -1}, fmt.Errorf("%w after %s; killing its processes failed: %w",
				backend.ErrExecTimeout, req.Timeout.Round(time.Millisecond), kerr)
		}
		return sandbox.ExecResult{ExitCode: -1}, fmt.Errorf("%w after %s; every process it started was killed",
			backend.ErrExecTimeout, req.Timeout.Round(time.Millisecond))
	}
	return res, err
}
