package workspace

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func newLocalWorkspace(t *testing.T) *Workspace {
	t.Helper()
	eng, _ := newEngine(t)
	w, err := eng.CreateLocal(context.Background(), LocalSpec{})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// waitFor polls cond for up to 15 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(15 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func stopAtEnd(t *testing.T, w *Workspace, p ServiceProcess) {
	t.Cleanup(func() { _, _ = w.StopService(context.Background(), p, time.Second) })
}

// With restart on failure, the supervisor starts a service that failed
// again, by itself; the log says so. A clean exit ends it.
func TestServiceRestartsOnFailure(t *testing.T) {
	w := newLocalWorkspace(t)
	ctx := context.Background()
	counter := filepath.Join(w.Root, "runs")
	p, _, err := w.StartService(ctx, ServiceSpec{Name: "flaky", LogMaxBytes: 1 << 20, RestartOnFailure: true,
		Argv: ShellArgv(`echo run >> runs; n=$(wc -l < runs); echo "attempt $n"; [ "$n" -ge 3 ] && exit 0; exit 7`)})
	if err != nil {
		t.Fatal(err)
	}
	stopAtEnd(t, w, p)
	waitFor(t, "the supervisor to give up after a clean exit", func() bool {
		up, err := w.ServiceRunning(ctx, p)
		return err == nil && !up
	})
	b, _ := os.ReadFile(counter)
	if got := strings.Count(string(b), "run"); got != 3 {
		t.Fatalf("the service ran %d times, want 3 (two failures restarted, a clean exit ends it)", got)
	}
	log, _ := os.ReadFile(filepath.Join(w.Root, ServiceLogPath("flaky")))
	for _, want := range []string{"attempt 1", "exited with code 7", "--- restarting", "attempt 3", "exited with code 0"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}

// A service that writes more than its cap keeps its log bounded: the newer
// half moves to <log>.1 and the log starts over.
func TestServiceLogCapped(t *testing.T) {
	w := newLocalWorkspace(t)
	ctx := context.Background()
	const capBytes = 8192
	p, _, err := w.StartService(ctx, ServiceSpec{Name: "chatty", LogMaxBytes: capBytes,
		Argv: ShellArgv(`while :; do echo 0123456789012345678901234567890123456789012345678901234567890123456789; sleep 0.01; done`)})
	if err != nil {
		t.Fatal(err)
	}
	stopAtEnd(t, w, p)
	logPath := filepath.Join(w.Root, ServiceLogPath("chatty"))
	waitFor(t, "the log to be rotated", func() bool { _, err := os.Stat(logPath + ".1"); return err == nil })
	time.Sleep(2500 * time.Millisecond)
	for _, f := range []string{logPath, logPath + ".1"} {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		// The cap is checked every two seconds: allow what 2.5 s of output adds.
		if fi.Size() > capBytes+40000 {
			t.Errorf("%s is %d bytes, cap %d", filepath.Base(f), fi.Size(), capBytes)
		}
	}
	if r, err := w.StopService(ctx, p, time.Second); err != nil || r.Terminated == 0 {
		t.Fatalf("stop: %+v, %v", r, err)
	}
	if up, err := w.ServiceRunning(ctx, p); err != nil || up {
		t.Fatalf("running after stop: %v, %v", up, err)
	}
}

// A process that ignores SIGTERM is killed after the grace period; one
// that left the session (setsid) is found by its token.
func TestServiceStopKillsStubbornAndEscaped(t *testing.T) {
	w := newLocalWorkspace(t)
	ctx := context.Background()
	p, _, err := w.StartService(ctx, ServiceSpec{Name: "stubborn", LogMaxBytes: 1 << 20,
		Argv: ShellArgv(`trap '' TERM; setsid sleep 3593 & echo $! > escaped.pid; while :; do sleep 1; done`)})
	if err != nil {
		t.Fatal(err)
	}
	stopAtEnd(t, w, p)
	var escaped int
	waitFor(t, "the escaped pid", func() bool {
		b, err := os.ReadFile(filepath.Join(w.Root, "escaped.pid"))
		escaped, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && escaped > 0
	})
	start := time.Now()
	r, err := w.StopService(ctx, p, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if r.Killed == 0 || time.Since(start) < time.Second {
		t.Fatalf("stop report %+v after %s: want SIGKILL after the 1s grace", r, time.Since(start))
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(escaped)); err == nil {
		stat, _ := os.ReadFile("/proc/" + strconv.Itoa(escaped) + "/stat")
		if !strings.Contains(string(stat), ") Z ") {
			t.Fatalf("the process that left the session survived: %s", stat)
		}
	}
}

// Readiness: a port probe waits for the listener; a service that exits
// first fails at once, not at the timeout.
func TestServiceReadiness(t *testing.T) {
	w := newLocalWorkspace(t)
	ctx := context.Background()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	spec := ServiceSpec{Name: "late", LogMaxBytes: 1 << 20, Argv: ShellArgv("sleep 3591")}
	p, _, err := w.StartService(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	stopAtEnd(t, w, p)
	go func() {
		time.Sleep(time.Second)
		if l2, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
			go func() { _ = http.Serve(l2, http.NotFoundHandler()) }()
			t.Cleanup(func() { l2.Close() })
		}
	}()
	if err := w.WaitServiceReady(ctx, p, spec, Readiness{TCPPort: port, Interval: 100 * time.Millisecond, Timeout: 10 * time.Second}); err != nil {
		t.Fatalf("tcp readiness: %v", err)
	}
	err = w.WaitServiceReady(ctx, p, spec, Readiness{HTTPPort: port, HTTPPath: "/", Interval: 100 * time.Millisecond, Timeout: time.Second})
	if !errors.Is(err, ErrServiceNotReady) || !strings.Contains(err.Error(), "404") {
		t.Fatalf("http readiness against a 404: %v", err)
	}

	spec = ServiceSpec{Name: "dies", LogMaxBytes: 1 << 20, Argv: ShellArgv("echo bye; exit 3")}
	p, _, err = w.StartService(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = w.WaitServiceReady(ctx, p, spec, Readiness{Exec: []string{"false"}, Interval: 100 * time.Millisecond, Timeout: time.Minute})
	if !errors.Is(err, ErrServiceNotReady) || !strings.Contains(err.Error(), "exited before it was ready") || time.Since(start) > 20*time.Second {
		t.Fatalf("readiness of a service that exited: %v after %s", err, time.Since(start))
	}
	if tail := w.ServiceLogTail(ctx, "dies", 5); !strings.Contains(tail, "bye") || !strings.Contains(tail, "exited with code 3") {
		t.Fatalf("log tail %q", tail)
	}
}
