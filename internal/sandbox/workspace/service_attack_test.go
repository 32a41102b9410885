package workspace

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startTicks is the start time of pid in clock ticks since boot, as the
// service scripts read it.
func startTicks(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+2:])[19]
}

// The supervisor's pid and start time come back through a file in the
// workspace. A process of the workspace that writes another process's pid
// and start time there (a session leader outside the service) makes the
// service look stopped, and its stop leaves that process alone.
func TestServiceSpoofedPidIsNotSignalled(t *testing.T) {
	w := newLocalWorkspace(t)
	ctx := context.Background()
	victim := exec.Command("sleep", "120")
	victim.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = victim.Process.Kill(); _ = victim.Wait() })
	spoof := strconv.Itoa(victim.Process.Pid) + " " + startTicks(t, victim.Process.Pid)
	p, _, err := w.StartService(ctx, ServiceSpec{Name: "liar", LogMaxBytes: 1 << 20,
		Argv: ShellArgv(`while :; do echo '` + spoof + `' > .services/liar.log.pid; sleep 0.05; done`)})
	if err != nil {
		t.Fatal(err)
	}
	stopAtEnd(t, w, p)
	// As a later start would read it back: the victim's pid and start time.
	waitFor(t, "the service to write the victim's pid", func() bool {
		b, _ := os.ReadFile(filepath.Join(w.Root, ".services", "liar.log.pid"))
		return strings.TrimSpace(string(b)) == spoof
	})
	forged := ServiceProcess{Token: p.Token, PID: victim.Process.Pid, StartTicks: startTicks(t, victim.Process.Pid)}
	if up, err := w.ServiceRunning(ctx, forged); err != nil || up {
		t.Fatalf("a process without the service's token counts as its supervisor: running=%v, %v", up, err)
	}
	if _, err := w.StopService(ctx, forged, time.Second); err != nil {
		t.Fatal(err)
	}
	if err := victim.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("stopping the service signalled the process whose pid it was given: %v", err)
	}
	// The service's own processes still carry the token: they are stopped.
	waitFor(t, "the service's processes to be gone", func() bool {
		up, err := w.ServiceRunning(ctx, p)
		return err == nil && !up
	})
}

// A service log whose directory or file is a symbolic link (planted by the
// workspace) is refused: nothing is written through it, and the error does
// not show what the link points to.
func TestServiceLogThroughSymlinkRefused(t *testing.T) {
	for _, at := range []string{"dir", "file"} {
		t.Run(at, func(t *testing.T) {
			w := newLocalWorkspace(t)
			outside := t.TempDir()
			target := filepath.Join(outside, "h.txt")
			if err := os.WriteFile(target, []byte("HOSTSECRET\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			link, to := filepath.Join(w.Root, ".services"), outside
			if at == "file" {
				if err := os.Mkdir(link, 0o755); err != nil {
					t.Fatal(err)
				}
				link, to = filepath.Join(link, "svc.log"), target
			} else if err := os.Rename(target, filepath.Join(outside, "svc.log")); err != nil {
				t.Fatal(err)
			} else {
				target = filepath.Join(outside, "svc.log")
			}
			if err := os.Symlink(to, link); err != nil {
				t.Fatal(err)
			}
			p, _, err := w.StartService(context.Background(), ServiceSpec{Name: "svc", LogMaxBytes: 1 << 20,
				Argv: ShellArgv(`echo from-service; exit 1`)})
			if err == nil {
				stopAtEnd(t, w, p)
				t.Fatal("a service started with its log behind a symbolic link")
			}
			if !strings.Contains(err.Error(), "symbolic link") || strings.Contains(err.Error(), "HOSTSECRET") {
				t.Fatalf("error: %v", err)
			}
			if b, _ := os.ReadFile(target); string(b) != "HOSTSECRET\n" {
				t.Fatalf("the file behind the link was written: %q", b)
			}
			if tail := w.ServiceLogTail(context.Background(), "svc", 20); strings.Contains(tail, "HOSTSECRET") {
				t.Fatalf("the log tail read through the link: %q", tail)
			}
		})
	}
}

// Terminal control sequences a service logs are escaped in the lines an
// error shows.
func TestServiceLogTailEscapesControls(t *testing.T) {
	w := newLocalWorkspace(t)
	if err := os.MkdirAll(filepath.Join(w.Root, ".services"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.Root, ServiceLogPath("esc")), []byte("line\x1b]0;PWNED\x07\x1b[31mRED\r\nnext\tok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := w.ServiceLogTail(context.Background(), "esc", 20)
	if want := `line\x1b]0;PWNED\x07\x1b[31mRED\x0d` + "\nnext\tok"; got != want {
		t.Fatalf("log tail %q, want %q", got, want)
	}
}
