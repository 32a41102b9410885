package workspace

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/redact"
)

// ServiceDir is the workspace-relative directory holding the services'
// logs.
const ServiceDir = ".services"

// ServiceLogPath is the workspace-relative path of a service's log.
func ServiceLogPath(name string) string { return path.Join(ServiceDir, name+".log") }

// ServiceSpec is a long-running process to start in a workspace.
type ServiceSpec struct {
	// Name names the service in the workspace (its log file).
	Name string
	// Argv is the command vector (no shell).
	Argv []string
	// User, WorkDir and Env are as for ExecRequest; SecretEnv is added as
	// ExecSecret does.
	User, WorkDir string
	Env           map[string]string
	SecretEnv     map[string]string
	// RestartOnFailure has the supervisor start the service again after a
	// non-zero exit (one second later).
	RestartOnFailure bool
	// LogMaxBytes caps the log; past it the older half moves to <log>.1.
	LogMaxBytes int64
}

// ServiceProcess identifies a started service: the supervisor's pid and
// start time (clock ticks since boot, from /proc/<pid>/stat) and the token
// every process of the service carries.
type ServiceProcess struct {
	Token      string
	PID        int
	StartTicks string
	StartedAt  time.Time
}

// Readiness is how StartService decides a service is ready: exactly one
// of Exec (exit 0), TCPPort (a connection is accepted) or HTTPPort with
// HTTPPath (a 2xx or 3xx answer), tried every Interval until Timeout.
type Readiness struct {
	Exec              []string
	TCPPort, HTTPPort int
	HTTPPath          string
	Interval, Timeout time.Duration
}

// ErrServiceNotReady is wrapped when a service did not become ready in
// time or exited first.
var ErrServiceNotReady = errors.New("service not ready")

func (w *Workspace) adminUser() string {
	if w.Backend.Kind() == "local" {
		return ""
	}
	return "0"
}

// StartService starts spec in its own session, supervised so that it
// outlives the provider. The returned Secrets must be redacted from
// anything shown.
func (w *Workspace) StartService(ctx context.Context, spec ServiceSpec) (ServiceProcess, redact.Secrets, error) {
	token := uuid.NewString()
	argv := append([]string{"sh", "-c", serviceStartScript, "sandbox-service", w.AbsPath(ServiceLogPath(spec.Name)),
		map[bool]string{true: "on-failure", false: "no"}[spec.RestartOnFailure],
		strconv.FormatInt(spec.LogMaxBytes, 10), token, "--"}, spec.Argv...)
	env := map[string]string{"SANDBOX_SERVICE_SUPERVISOR": serviceSupervisor}
	for k, v := range spec.Env {
		env[k] = v
	}
	res, err := w.ExecSecret(ctx, sandbox.ExecRequest{Argv: argv, User: spec.User, WorkDir: spec.WorkDir, Env: env,
		Timeout: 30 * time.Second}, spec.SecretEnv)
	if err != nil {
		return ServiceProcess{}, res.Secrets, err
	}
	if res.ExitCode != 0 {
		return ServiceProcess{}, res.Secrets, fmt.Errorf("starting service %q in workspace %s: exit code %d: %s", spec.Name, w.ID,
			res.ExitCode, res.Secrets.Text(strings.TrimSpace(string(res.Stderr))))
	}
	fields := strings.Fields(string(res.Stdout))
	if len(fields) != 2 {
		return ServiceProcess{}, res.Secrets, fmt.Errorf("starting service %q in workspace %s: unexpected answer %q",
			spec.Name, w.ID, res.Secrets.Text(string(res.Stdout)))
	}
	pid, err := strconv.Atoi(fields[0])
	if err != nil || pid <= 1 {
		return ServiceProcess{}, res.Secrets, fmt.Errorf("starting service %q: bad pid %q", spec.Name, fields[0])
	}
	if _, err := strconv.ParseUint(fields[1], 10, 64); err != nil {
		return ServiceProcess{}, res.Secrets, fmt.Errorf("starting service %q: bad start time %q", spec.Name, fields[1])
	}
	return ServiceProcess{Token: token, PID: pid, StartTicks: fields[1], StartedAt: time.Now().UTC()}, res.Secrets, nil
}

// ServiceRunning reports whether the supervisor of p is still alive. It
// only observes.
func (w *Workspace) ServiceRunning(ctx context.Context, p ServiceProcess) (bool, error) {
	res, err := w.Exec(ctx, sandbox.ExecRequest{Argv: []string{"sh", "-c", serviceStatusScript, "sandbox-service",
		strconv.Itoa(p.PID), p.StartTicks, p.Token}, User: w.adminUser(), Timeout: 30 * time.Second})
	if err != nil {
		return false, err
	}
	switch strings.TrimSpace(string(res.Stdout)) {
	case "running":
		return true, nil
	case "stopped":
		return false, nil
	}
	return false, fmt.Errorf("checking service pid %d in workspace %s: unexpected answer (exit code %d)", p.PID, w.ID, res.ExitCode)
}

// StopReport says what StopService did.
type StopReport struct {
	// Terminated processes got SIGTERM; Killed were still there after the
	// grace period and got SIGKILL.
	Terminated, Killed int
}

// StopService stops every process of p: SIGTERM, then SIGKILL to those
// still alive after grace. A service already gone is not an error.
func (w *Workspace) StopService(ctx context.Context, p ServiceProcess, grace time.Duration) (StopReport, error) {
	secs := int((grace + time.Second - 1) / time.Second)
	res, err := w.Exec(ctx, sandbox.ExecRequest{Argv: []string{"sh", "-c", serviceStopScript, "sandbox-service",
		strconv.Itoa(p.PID), p.StartTicks, p.Token, strconv.Itoa(secs)}, User: w.adminUser(), Timeout: grace + 2*time.Minute})
	if err != nil {
		return StopReport{}, err
	}
	var r StopReport
	_, _ = fmt.Sscanf(string(res.Stdout), "%d %d", &r.Terminated, &r.Killed)
	if res.ExitCode != 0 {
		return r, fmt.Errorf("stopping service pid %d in workspace %s: %s", p.PID, w.ID, strings.TrimSpace(string(res.Stderr)))
	}
	return r, nil
}

// ServiceLogTail returns the last lines of a service's log (at most 4 KiB
// of it, as text).
func (w *Workspace) ServiceLogTail(ctx context.Context, name string, lines int) string {
	res, err := w.Exec(ctx, sandbox.ExecRequest{Argv: []string{"sh", "-c", serviceLogTailScript, "sandbox-service",
		w.AbsPath(ServiceLogPath(name))}, User: w.adminUser(), Timeout: 30 * time.Second})
	if err != nil {
		return fmt.Sprintf("(log not readable: %v)", err)
	}
	s := strings.TrimRight(sandbox.EscapeTerminal(string(res.Stdout)), "\n")
	all := strings.Split(s, "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}

// WaitServiceReady probes p's readiness every r.Interval until it passes,
// the service exits, or r.Timeout passes (the error then wraps
// ErrServiceNotReady and says the last probe's failure).
func (w *Workspace) WaitServiceReady(ctx context.Context, p ServiceProcess, spec ServiceSpec, r Readiness) error {
	deadline := time.Now().Add(r.Timeout)
	var last error
	for {
		attempt, cancel := context.WithDeadline(ctx, deadline)
		last = w.probeOnce(attempt, spec, r)
		cancel()
		if last == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if up, err := w.ServiceRunning(ctx, p); err == nil && !up {
			return fmt.Errorf("%w: the service exited before it was ready (last probe: %w)", ErrServiceNotReady, last)
		}
		if time.Now().Add(r.Interval).After(deadline) {
			return fmt.Errorf("%w within %s (last probe: %w)", ErrServiceNotReady, r.Timeout, last)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(r.Interval):
		}
	}
}

func (w *Workspace) probeOnce(ctx context.Context, spec ServiceSpec, r Readiness) error {
	if len(r.Exec) > 0 {
		timeout := backend.ProbeTimeout
		if d, ok := ctx.Deadline(); ok && time.Until(d) < timeout {
			timeout = max(time.Until(d), time.Millisecond)
		}
		res, err := w.ExecSecret(ctx, sandbox.ExecRequest{Argv: r.Exec, User: spec.User, WorkDir: spec.WorkDir, Env: spec.Env,
			Timeout: timeout}, spec.SecretEnv)
		if err != nil {
			return err
		}
		if res.ExitCode != 0 {
			return fmt.Errorf("%s exited with code %d", sandbox.ShellJoin(r.Exec), res.ExitCode)
		}
		return nil
	}
	pr, ok := w.Backend.(backend.Prober)
	if !ok {
		return fmt.Errorf("the %s backend cannot probe ports", w.Backend.Kind())
	}
	if r.HTTPPort > 0 {
		return pr.Probe(ctx, "http", r.HTTPPort, r.HTTPPath)
	}
	return pr.Probe(ctx, "tcp", r.TCPPort, "")
}
