package workspace

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/kubernetes"
)

// Run states of a workspace (sandbox_workspace.run_state).
const (
	RunRunning = "running"
	RunStopped = "stopped"
	RunPaused  = "paused"
)

// What a creation or start waits for (sandbox_workspace.wait_until).
const (
	WaitStarted = "started"
	WaitHealthy = "healthy"
)

// DefaultHealthTimeout bounds how long WaitHealthy waits when the caller's
// context allows longer.
const DefaultHealthTimeout = 5 * time.Minute

// ErrUnhealthy is wrapped when a workspace does not become healthy.
var ErrUnhealthy = docker.ErrUnhealthy

// RunState is w's run state as last observed.
func (w *Workspace) RunState() string {
	switch {
	case w.Paused:
		return RunPaused
	case w.Running:
		return RunRunning
	}
	return RunStopped
}

// runStater is a driver whose workspaces can be stopped and paused (a
// container); the other kinds always run.
type runStater interface {
	setRunState(ctx context.Context, w *Workspace, state string) error
}

// healthWaiter is a driver that can wait for its workspace's readiness:
// a container's health check, a pod's Ready condition.
type healthWaiter interface {
	waitHealthy(ctx context.Context, w *Workspace) error
}

// HasRunState reports whether w's kind can be stopped or paused.
func HasRunState(w *Workspace) bool {
	_, ok := w.drv.(runStater)
	return ok
}

// SetRunState brings w to state (RunRunning, RunStopped or RunPaused) and
// refreshes w. A kind without a run state accepts only RunRunning.
func (e *Engine) SetRunState(ctx context.Context, w *Workspace, state string) error {
	if w.RunState() == state {
		return nil
	}
	rs, ok := w.drv.(runStater)
	if !ok {
		return fmt.Errorf("workspace %s is a %s workspace, which is always running; it cannot be %s", w.ID, w.Kind, state)
	}
	if err := rs.setRunState(ctx, w, state); err != nil {
		return fmt.Errorf("workspace %s: %w", w.ID, err)
	}
	nw, err := e.Open(ctx, w.ID)
	if err != nil {
		return err
	}
	*w = *nw
	return nil
}

// WaitHealthy waits until w is ready: a container's health check passes,
// a pod reports Ready. It waits for at most DefaultHealthTimeout, or as
// long as ctx allows; a container's failure wraps ErrUnhealthy and holds
// the check's last results.
func (e *Engine) WaitHealthy(ctx context.Context, w *Workspace) error {
	hw, ok := w.drv.(healthWaiter)
	if !ok {
		return fmt.Errorf("workspace %s is a %s workspace, which has no health check", w.ID, w.Kind)
	}
	ctx, cancel := context.WithTimeout(ctx, DefaultHealthTimeout)
	defer cancel()
	if err := hw.waitHealthy(ctx, w); err != nil {
		// The check's output may print the write-only environment.
		values, _ := w.drv.secretEnvironment(context.WithoutCancel(ctx), w)
		return fmt.Errorf("workspace %s: %w", w.ID, envSecrets(nil).With(values...).Error(err, ErrUnhealthy))
	}
	return nil
}

func (d dockerDriver) setRunState(ctx context.Context, w *Workspace, state string) error {
	b := d.backend(w)
	switch state {
	case RunRunning:
		return b.Start(ctx)
	case RunStopped:
		return b.Stop(ctx)
	case RunPaused:
		return b.Pause(ctx)
	}
	return fmt.Errorf("unknown run state %q: expected %q, %q or %q", state, RunRunning, RunStopped, RunPaused)
}

func (d dockerDriver) waitHealthy(ctx context.Context, w *Workspace) error {
	return d.backend(w).WaitHealthy(ctx)
}

func (kubernetesDriver) waitHealthy(ctx context.Context, w *Workspace) error {
	b, ok := w.Backend.(*kubernetes.Backend)
	if !ok {
		return fmt.Errorf("workspace %s has no pod", w.ID)
	}
	timeout := DefaultHealthTimeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl)
	}
	return b.WaitReady(ctx, timeout)
}

// wakes counts, per workspace, the changes that woke it (see Wake).
type wakes struct {
	mu sync.Mutex
	m  map[string]*wake
}

type wake struct {
	mu    sync.Mutex
	n     int
	prior string
}

func (ws *wakes) of(id string) *wake {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.m == nil {
		ws.m = map[string]*wake{}
	}
	k := ws.m[id]
	if k == nil {
		k = &wake{}
		ws.m[id] = k
	}
	return k
}

// Wake brings a stopped or paused workspace up for a change (an entry
// written, changed or removed) and refreshes w. The function it returns
// puts the workspace back in the run state Wake found it in, once every
// change that woke it concurrently has called its own; call it when the
// change is done, whether it failed or not. A running workspace, or a kind
// that always runs, is left alone.
func (e *Engine) Wake(ctx context.Context, w *Workspace) (func(context.Context) error, error) {
	if !HasRunState(w) {
		return func(context.Context) error { return nil }, nil
	}
	k := e.wakes.of(w.ID)
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.n == 0 {
		nw, err := e.Open(ctx, w.ID)
		if err != nil {
			return nil, err
		}
		*w = *nw
		k.prior = w.RunState()
		if err := e.SetRunState(ctx, w, RunRunning); err != nil {
			return nil, err
		}
	}
	k.n++
	id := w.ID
	once := sync.Once{}
	return func(ctx context.Context) (err error) {
		once.Do(func() {
			k.mu.Lock()
			defer k.mu.Unlock()
			if k.n--; k.n > 0 || k.prior == RunRunning {
				return
			}
			nw, oerr := e.Open(ctx, id)
			if oerr != nil {
				err = oerr
				return
			}
			err = e.SetRunState(ctx, nw, k.prior)
		})
		return err
	}, nil
}
