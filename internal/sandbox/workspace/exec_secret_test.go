package workspace

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

func TestExecSecret(t *testing.T) {
	e, _ := newEngine(t)
	ctx := context.Background()
	w, err := e.CreateLocal(ctx, LocalSpec{Environment: map[string]string{"PLAIN": "p"}})
	if err != nil {
		t.Fatal(err)
	}
	req := sandbox.ExecRequest{Argv: ShellArgv(`echo "$PLAIN $S"`), Env: map[string]string{"S": "overridden"}}
	res, err := w.ExecSecret(ctx, req, map[string]string{"S": "hush-1234"})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Stdout) != "p hush-1234\n" {
		t.Errorf("the command saw %q", res.Stdout)
	}
	if got := string(res.Secrets.Bytes(res.Stdout)); got != "p REDACTED\n" {
		t.Errorf("redacted output %q", got)
	}
	if req.Env["S"] != "overridden" {
		t.Error("ExecSecret changed the caller's environment")
	}

	// An error naming the secret (here in the command itself) is redacted
	// and still says it timed out.
	req = sandbox.ExecRequest{Argv: ShellArgv("sleep 5 # hush-1234"), Timeout: 100 * time.Millisecond}
	_, err = w.ExecSecret(ctx, req, map[string]string{"S": "hush-1234"})
	if !errors.Is(err, sandbox.ErrExecTimeout) || strings.Contains(err.Error(), "hush-1234") || !strings.Contains(err.Error(), "REDACTED") {
		t.Errorf("timeout error: %v", err)
	}
}
