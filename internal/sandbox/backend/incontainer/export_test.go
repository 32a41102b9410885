package incontainer

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// scriptedRunner answers every Run with a fixed result, or, with hang,
// never answers until its context ends.
type scriptedRunner struct {
	res   sandbox.ExecResult
	out   string
	hang  bool
	procs []Proc
}

func (r *scriptedRunner) Run(ctx context.Context, p Proc) (sandbox.ExecResult, error) {
	r.procs = append(r.procs, p)
	if p.Stdin != nil {
		_, _ = io.Copy(io.Discard, p.Stdin)
	}
	if r.hang {
		<-ctx.Done()
		return sandbox.ExecResult{}, ctx.Err()
	}
	if p.Out != nil {
		_, _ = io.WriteString(p.Out, r.out)
	}
	return r.res, nil
}

func (r *scriptedRunner) Name() string { return "container 0123abcd4567" }

func knownHelperWorkspace(r Runner) *Workspace {
	return New(r, "k", "/workspace", &HelperCache{known: map[string]string{"k": "/h/sandbox-fs-helper"}}, Hooks{})
}

// A helper that dies without a word (a SIGKILL at a memory or process
// limit) still gets a reason: its exit status and what it means.
func TestExportArchiveFailureCarriesAReason(t *testing.T) {
	r := &scriptedRunner{res: sandbox.ExecResult{ExitCode: 137}}
	err := knownHelperWorkspace(r).ExportArchive(context.Background(), []string{"a"}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "exit status 137") || !strings.Contains(err.Error(), "SIGKILL") ||
		strings.HasSuffix(strings.TrimSpace(err.Error()), "failed:") {
		t.Fatalf("error = %v, want the exit status and its meaning", err)
	}
	r = &scriptedRunner{res: sandbox.ExecResult{ExitCode: 1, Stderr: []byte("export: open a: no such file\n")}}
	err = knownHelperWorkspace(r).ExportArchive(context.Background(), []string{"a"}, io.Discard)
	if err == nil || !strings.HasSuffix(err.Error(), "failed: export: open a: no such file") {
		t.Fatalf("error = %v, want the helper's own reason", err)
	}
	// The single-file read path says the same.
	r = &scriptedRunner{res: sandbox.ExecResult{ExitCode: 1}}
	err = knownHelperWorkspace(r).helperStream(context.Background(), "read", "a", "10", io.Discard, -1)
	if err == nil || !strings.Contains(err.Error(), "exit status 1 without a message") {
		t.Fatalf("read error = %v, want the exit status", err)
	}
}

// One process exports every file: the list goes to its stdin.
func TestExportArchiveIsOneProcess(t *testing.T) {
	r := &scriptedRunner{out: "TAR"}
	var out bytes.Buffer
	files := make([]string, 20000)
	for i := range files {
		files[i] = "f"
	}
	if err := knownHelperWorkspace(r).ExportArchive(context.Background(), files, &out); err != nil {
		t.Fatal(err)
	}
	if len(r.procs) != 1 || out.String() != "TAR" || r.procs[0].Argv[1] != "export" || r.procs[0].User != "0:0" {
		t.Fatalf("procs = %+v, out = %q", r.procs, out.String())
	}
}

// A helper that never answers is abandoned when the context ends.
func TestExportArchiveGivesUpOnAHelperThatNeverAnswers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := knownHelperWorkspace(&scriptedRunner{hang: true}).ExportArchive(ctx, []string{"a"}, io.Discard)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("error = %v after %s, want the deadline", err, time.Since(start))
	}
}
