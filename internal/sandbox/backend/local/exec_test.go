//go:build unix

package local

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

func TestExec(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "tasks/a"), 0o755); err != nil {
		t.Fatal(err)
	}
	b := New(root)
	ctx := context.Background()
	res, err := b.Exec(ctx, sandbox.ExecRequest{
		Argv:    []string{"sh", "-c", `pwd; echo "$GREETING $HOME"; echo oops >&2; exit 3`},
		WorkDir: "tasks/a",
		Env:     map[string]string{"GREETING": "hi"},
	})
	if err != nil {
		t.Fatal(err)
	}
	wantOut := filepath.Join(root, "tasks/a") + "\nhi " + root + "\n"
	if string(res.Stdout) != wantOut || string(res.Stderr) != "oops\n" || res.ExitCode != 3 {
		t.Fatalf("got stdout %q stderr %q exit %d; want %q, \"oops\\n\", 3", res.Stdout, res.Stderr, res.ExitCode, wantOut)
	}
}

func TestExecTimeoutKillsProcessGroup(t *testing.T) {
	root := t.TempDir()
	b := New(root)
	marker := filepath.Join(root, "survived")
	start := time.Now()
	// The child sleeps in the background; killing only sh would leave it.
	_, err := b.Exec(context.Background(), sandbox.ExecRequest{
		Argv:    []string{"sh", "-c", "(sleep 2; touch " + marker + ") & wait"},
		Timeout: 200 * time.Millisecond,
	})
	if !errors.Is(err, sandbox.ErrExecTimeout) || !strings.Contains(err.Error(), "command timed out") {
		t.Fatalf("err = %v, want ErrExecTimeout", err)
	}
	if time.Since(start) > 1500*time.Millisecond {
		t.Fatalf("Exec returned after %s, the timeout was 200ms", time.Since(start))
	}
	time.Sleep(2500 * time.Millisecond)
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("a process of the group outlived the timeout (marker: %v)", err)
	}
}

func TestExecRefusesUser(t *testing.T) {
	_, err := New(t.TempDir()).Exec(context.Background(), sandbox.ExecRequest{Argv: []string{"true"}, User: "agent"})
	if err == nil || !strings.Contains(err.Error(), "cannot switch users") {
		t.Fatalf("err = %v", err)
	}
}

func TestExecCapsOutput(t *testing.T) {
	res, err := New(t.TempDir()).Exec(context.Background(), sandbox.ExecRequest{
		Argv: []string{"sh", "-c", "head -c 5000000 /dev/zero; echo small >&2"},
	})
	if !errors.Is(err, backend.ErrOutputTooLarge) || !strings.Contains(err.Error(), "stdout was 5000000 bytes") {
		t.Fatalf("err = %v, want ErrOutputTooLarge naming stdout", err)
	}
	if len(res.Stdout) != backend.MaxOutputBytes || string(res.Stderr) != "small\n" {
		t.Fatalf("kept %d bytes of stdout and %q of stderr", len(res.Stdout), res.Stderr)
	}
}

// A process that left the command's process group (setsid: a new session)
// is killed on timeout too, and the error names what was killed.
func TestExecTimeoutKillsNewSessions(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("needs /proc")
	}
	root := t.TempDir()
	marker := filepath.Join(root, "survived")
	_, err := New(root).Exec(context.Background(), sandbox.ExecRequest{
		Argv:    []string{"sh", "-c", "setsid sh -c 'sleep 2; touch " + marker + "' </dev/null >/dev/null 2>&1 & sleep 30"},
		Timeout: 300 * time.Millisecond,
	})
	if !errors.Is(err, sandbox.ErrExecTimeout) {
		t.Fatalf("err = %v, want ErrExecTimeout", err)
	}
	// sh (the command), sh (in its own session) and the two sleeps.
	for _, want := range []string{"every process it started was killed: 4 processes (", " sleep", " sh"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to hold %q", err, want)
		}
	}
	time.Sleep(2500 * time.Millisecond)
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("a process in a new session outlived the timeout (marker: %v)", err)
	}
}

func TestExecCannotStart(t *testing.T) {
	b := New(t.TempDir())
	_, err := b.Exec(context.Background(), sandbox.ExecRequest{Argv: []string{"true"}, WorkDir: "results/x"})
	var se *sandbox.StartError
	if !errors.As(err, &se) || se.Attr != "working_dir" || !strings.Contains(err.Error(), `working_dir "results/x" does not exist in the workspace`) {
		t.Fatalf("err = %v, want a StartError on working_dir", err)
	}
	_, err = b.Exec(context.Background(), sandbox.ExecRequest{Argv: []string{"no-such-program-here"}})
	if !errors.As(err, &se) || se.Attr != "command" || !strings.Contains(err.Error(), `"no-such-program-here" could not be started`) {
		t.Fatalf("err = %v, want a StartError on the command", err)
	}
}
