//go:build linux

package fshelper

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

const reexecEnv = "FSHELPER_TEST_REEXEC"

func TestMain(m *testing.M) {
	if os.Getenv(reexecEnv) == "1" {
		os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// helperRun runs the test binary as the helper with args and returns its
// stdout, stderr and exit code.
func helperRun(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), reexecEnv+"=1", "SANDBOX_RUN_TEST=inherited")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// OpRun takes the user's uid, gid and groups, the working directory and
// the environment given, and passes the command's own exit status.
func TestOpRun(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("OpRun changes identity: needs root")
	}
	env, _ := json.Marshal([]string{"GREETING=hello"})
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := helperRun(t, OpRun, "nobody", dir, string(env),
		"sh", "-c", `echo "$(id -u) $(id -g) $(pwd) $GREETING $SANDBOX_RUN_TEST $HOME"; exit 7`)
	if code != 7 {
		t.Fatalf("exit %d, want the command's 7: %s", code, stderr)
	}
	if want := "65534 65534 " + dir + " hello inherited /nonexistent\n"; out != want {
		t.Fatalf("got %q, want %q", out, want)
	}
	out, _, code = helperRun(t, OpRun, "0:65534", "/", "[]", "sh", "-c", "id -u; id -g")
	if code != 0 || out != "0\n65534\n" {
		t.Fatalf("uid:gid: exit %d, %q", code, out)
	}
	_, stderr, code = helperRun(t, OpRun, "no-such-user", "/", "[]", "true")
	if code != 126 || !strings.Contains(stderr, `unknown user "no-such-user"`) {
		t.Fatalf("unknown user: exit %d, %q", code, stderr)
	}
	_, stderr, code = helperRun(t, OpRun, "", "/", "[]", "no-such-program")
	if code != 127 || !strings.Contains(stderr, "no-such-program") {
		t.Fatalf("missing program: exit %d, %q", code, stderr)
	}
}
