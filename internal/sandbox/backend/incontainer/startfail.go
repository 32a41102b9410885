package incontainer

import (
	"path"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
)

// maxStartMessage is the most output a runtime's refusal to start a
// command holds: one short line. Longer output is the command's own.
const maxStartMessage = 1024

// startFailure recognises the container runtime's refusal to start req
// (the command never ran): exit 126 or 127 with nothing but the runtime's
// one-line message as output, from Docker's runtime ("OCI runtime exec
// failed: ... chdir to cwd ...", "unable to find user ...") or from the
// file helper's run operation ("sandbox-fs-helper run: ..."). It returns
// nil for anything else, the command's own exit included.
func startFailure(req sandbox.ExecRequest, res sandbox.ExecResult) *sandbox.StartError {
	if res.ExitCode != 126 && res.ExitCode != 127 {
		return nil
	}
	out := string(res.Stdout) + string(res.Stderr)
	if len(res.Stdout) > 0 && len(res.Stderr) > 0 || len(out) > maxStartMessage ||
		strings.Count(strings.TrimRight(out, "\r\n"), "\n") > 0 {
		return nil
	}
	msg := strings.TrimSpace(out)
	docker := strings.HasPrefix(msg, "OCI runtime exec failed:") || strings.HasPrefix(msg, "unable to find user ") ||
		strings.HasPrefix(msg, "unable to find group ")
	helper := strings.HasPrefix(msg, fshelper.HelperName+" run: ")
	if !docker && !helper {
		return nil
	}
	workdir := req.WorkDir
	if workdir == "" {
		workdir = "."
	}
	e := &sandbox.StartError{Detail: backend.StartDetail(msg)}
	switch {
	case strings.Contains(msg, "chdir to cwd") || helper && strings.Contains(msg, ": chdir "):
		e.Attr, e.Value = "working_dir", path.Clean(workdir)
	case strings.HasPrefix(msg, "unable to find user ") || strings.HasPrefix(msg, "unable to find group ") ||
		helper && (strings.Contains(msg, "unknown user") || strings.Contains(msg, "unknown group")):
		e.Attr, e.Value = "user", req.User
	default:
		e.Attr = "command"
		if len(req.Argv) > 0 {
			e.Value = req.Argv[0]
		}
	}
	return e
}
