package docker

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/incontainer"
)

// execSpec is one `docker exec`.
type execSpec struct {
	argv    []string
	user    string
	workdir string
	env     []string
	stdin   io.Reader // nil: no stdin
	limit   int       // bytes kept per output stream; 0 keeps everything
	strict  bool      // fail at once past limit (incontainer.Proc.Strict)
	out     io.Writer // when set, stdout streams here instead of into memory
	// complete, when it accepts stdout, spares the exit code's round trip
	// (see incontainer.Proc.Complete).
	complete func([]byte) bool
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
	stdout, stderr := &backend.CappedBuffer{Limit: spec.limit, Strict: spec.strict}, &backend.CappedBuffer{Limit: spec.limit, Strict: spec.strict}
	var outW io.Writer = stdout
	if spec.out != nil {
		outW = spec.out
	}
	_, copyErr := stdcopy.StdCopy(outW, stderr, att.Reader)
	if copyErr != nil {
		// Abandon the process: its stdin need not be read to the end.
		att.Close()
	}
	var inErr error
	select {
	case inErr = <-stdinErr:
	case <-ctx.Done():
	}
	if err := ctx.Err(); err != nil {
		return sandbox.ExecResult{}, err
	}
	if copyErr != nil {
		return sandbox.ExecResult{}, fmt.Errorf("exec %s: reading output: %w", spec.argv[0], copyErr)
	}
	if inErr != nil && !isBrokenPipe(inErr) {
		return sandbox.ExecResult{}, inErr
	}
	res := sandbox.ExecResult{Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}
	if spec.complete != nil && spec.out == nil && spec.complete(res.Stdout) {
		return res, backend.CheckOutput(stdout, stderr)
	}
	for i := 0; ; i++ {
		ins, err := cli.ExecInspect(ctx, created.ID, client.ExecInspectOptions{})
		if err != nil {
			return res, fmt.Errorf("exec %s: reading the exit code: %w", spec.argv[0], err)
		}
		if !ins.Running {
			res.ExitCode = ins.ExitCode
			if res.ExitCode == 126 && d.stoppedMeanwhile(ctx, containerID, runtimeRefused(res)) {
				// The container stopped between the exec's creation and
				// its start (the runtime refused with 126): the same
				// ErrStopped as a refused creation.
				return res, fmt.Errorf("exec %s in container %s: %w", spec.argv[0], short(containerID), backend.ErrStopped)
			}
			return res, backend.CheckOutput(stdout, stderr)
		}
		if i > 100 {
			return res, fmt.Errorf("exec %s: missing_exit_code: the command still runs after its output closed", spec.argv[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stoppedMeanwhile reports whether the daemon shows the container stopped
// or paused now. With wait (the runtime itself said the container is
// stopped), it asks again for up to three seconds: the runtime refuses an
// exec as soon as the container's init has exited, a moment before the
// daemon has processed that exit and shows it stopped.
func (d *Daemon) stoppedMeanwhile(ctx context.Context, containerID string, wait bool) bool {
	cli, err := d.api()
	if err != nil {
		return false
	}
	for end := time.Now().Add(3 * time.Second); ; {
		info, err := cli.ContainerInspect(ctx, containerID, client.ContainerInspectOptions{})
		if err != nil || info.Container.State == nil {
			return false
		}
		if !info.Container.State.Running || info.Container.State.Paused {
			return true
		}
		if !wait || time.Now().After(end) || ctx.Err() != nil {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// runtimeRefused reports whether an exec's output is the runtime's own
// refusal to exec in a container whose init has exited.
func runtimeRefused(res sandbox.ExecResult) bool {
	return bytes.Contains(res.Stderr, []byte("cannot exec in a stopped")) || bytes.Contains(res.Stdout, []byte("cannot exec in a stopped"))
}

func isBrokenPipe(err error) bool {
	s := err.Error()
	return strings.Contains(s, "broken pipe") || strings.Contains(s, "use of closed network connection")
}

// containerRunner runs processes in one container with `docker exec`.
type containerRunner struct {
	d  *Daemon
	id string
}

var _ incontainer.Installer = containerRunner{}

// Run implements incontainer.Runner.
func (r containerRunner) Run(ctx context.Context, p incontainer.Proc) (sandbox.ExecResult, error) {
	return r.d.run(ctx, r.id, execSpec{argv: p.Argv, user: p.User, workdir: p.WorkDir, env: p.Env, stdin: p.Stdin, limit: p.Limit, strict: p.Strict, out: p.Out,
		complete: p.Complete})
}

// Name implements incontainer.Runner.
func (r containerRunner) Name() string { return "container " + short(r.id) }
