package workspace

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

func TestExecSecret(t *testing.T) {
	e, _ := newEngine(t)
	ctx := context.Background()
	w, err := e.CreateLocal(ctx, LocalSpec{Environment: map[string]string{"PLAIN": "p"}})
	if err != nil {
		t.Fatal(err)
	}
	req := backend.ExecRequest{Argv: ShellArgv(`echo "$PLAIN $S"`), Env: map[string]string{"S": "overridden"}}
	res, secrets, err := e.ExecSecret(ctx, w.ID, req, map[string]string{"S": "hush-1234"})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Stdout) != "p hush-1234\n" {
		t.Errorf("the command saw %q", res.Stdout)
	}
	if got := string(secrets.Bytes(res.Stdout)); got != "p REDACTED\n" {
		t.Errorf("redacted output %q", got)
	}
	if req.Env["S"] != "overridden" {
		t.Error("ExecSecret changed the caller's environment")
	}

	// An error naming the secret (here in the command itself) is redacted
	// and still says it timed out.
	req = backend.ExecRequest{Argv: ShellArgv("sleep 5 # hush-1234"), Timeout: 100 * time.Millisecond}
	_, _, err = e.ExecSecret(ctx, w.ID, req, map[string]string{"S": "hush-1234"})
	if !errors.Is(err, backend.ErrExecTimeout) || strings.Contains(err.Error(), "hush-1234") || !strings.Contains(err.Error(), "REDACTED") {
		t.Errorf("timeout error: %v", err)
	}
	if _, _, err := e.ExecSecret(ctx, "0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11", req, nil); !errors.Is(err, ErrWorkspaceGone) {
		t.Errorf("unknown workspace: %v", err)
	}
}
