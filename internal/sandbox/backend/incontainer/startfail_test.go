package incontainer

import (
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// The runtimes' refusals, as Docker (runc) and the file helper's run
// operation print them, are told apart from a command's own exit 126/127.
func TestStartFailure(t *testing.T) {
	req := sandbox.ExecRequest{Argv: []string{"pytest", "-q"}, User: "agnet", WorkDir: "tests/unit"}
	for name, c := range map[string]struct {
		code           int
		stdout, stderr string
		attr, value    string // "" attr: not a start failure
	}{
		"docker cwd": {126, `OCI runtime exec failed: exec failed: unable to start container process: chdir to cwd ("/workspace/tests/unit") set in config.json failed: no such file or directory: unknown` + "\r\n", "",
			"working_dir", "tests/unit"},
		"docker user":    {126, "unable to find user agnet: no matching entries in passwd file\r\n", "", "user", "agnet"},
		"docker program": {126, `OCI runtime exec failed: exec failed: unable to start container process: exec: "pytest": executable file not found in $PATH: unknown`, "", "command", "pytest"},
		"helper cwd":     {126, "", "sandbox-fs-helper run: chdir /workspace/tests/unit: no such file or directory\n", "working_dir", "tests/unit"},
		"helper user":    {126, "", "sandbox-fs-helper run: unknown user \"agnet\"\n", "user", "agnet"},
		"helper program": {127, "", "sandbox-fs-helper run: exec: \"pytest\": executable file not found in $PATH\n", "command", "pytest"},
		// The command's own exits, whatever they print.
		"shell not found": {127, "", "sh: pytest: not found\n", "", ""},
		"own 126":         {126, "collected 0 items\n", "unable to find user agnet: no matching entries in passwd file\n", "", ""},
		"long output":     {126, strings.Repeat("x", 2000) + "\nunable to find user agnet\n", "", "", ""},
		"exit 1":          {1, "unable to find user agnet: no matching entries in passwd file\n", "", "", ""},
	} {
		t.Run(name, func(t *testing.T) {
			got := startFailure(req, sandbox.ExecResult{ExitCode: c.code, Stdout: []byte(c.stdout), Stderr: []byte(c.stderr)})
			switch {
			case c.attr == "" && got != nil:
				t.Fatalf("a start failure: %v", got)
			case c.attr == "":
			case got == nil:
				t.Fatal("not recognised as a start failure")
			case got.Attr != c.attr || got.Value != c.value:
				t.Fatalf("got %s %q, want %s %q (%v)", got.Attr, got.Value, c.attr, c.value, got)
			case strings.ContainsAny(got.Detail, "\r\n"):
				t.Fatalf("detail %q holds a line break", got.Detail)
			}
		})
	}
}
