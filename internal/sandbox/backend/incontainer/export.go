package incontainer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
)

var _ backend.ExportArchiver = (*Workspace)(nil)

// ExportArchive implements backend.ExportArchiver with one file helper
// process (fshelper.OpExport) for all the files: their list goes to its
// stdin, the archive comes back on its stdout.
func (w *Workspace) ExportArchive(ctx context.Context, files []string, out io.Writer) error {
	list, err := json.Marshal(files)
	if err != nil {
		return err
	}
	w.countCall()
	p, err := w.cache.ensure(ctx, w)
	if err != nil {
		return err
	}
	res, err := w.r.Run(ctx, Proc{Argv: []string{p, fshelper.OpExport, w.root, "."}, User: "0:0",
		Stdin: bytes.NewReader(list), Out: out, Limit: 64 << 10})
	if err != nil {
		return fmt.Errorf("file helper %s in %s: %w", fshelper.OpExport, w.r.Name(), err)
	}
	if res.ExitCode != 0 {
		return helperFailed(fshelper.OpExport, ".", w.r.Name(), res)
	}
	return nil
}

// helperFailed is the error of a streaming helper operation that exited
// with a non-zero status: its reason on stderr, or, when it printed none,
// its exit status and what that status means.
func helperFailed(op, rel, name string, res sandbox.ExecResult) error {
	reason := string(bytes.TrimSpace(res.Stderr))
	if reason == "" {
		reason = fmt.Sprintf("exit status %d without a message", res.ExitCode)
		switch {
		case res.ExitCode == 137:
			reason += " (killed by SIGKILL: the container's memory or process limit, or a stop)"
		case res.ExitCode == 126 || res.ExitCode == 127:
			reason += " (the helper could not be started)"
		case res.ExitCode > 128:
			reason += fmt.Sprintf(" (killed by signal %d)", res.ExitCode-128)
		}
	}
	return fmt.Errorf("file helper %s %s in %s failed: %s", op, rel, name, reason)
}
