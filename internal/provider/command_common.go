package provider

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/redact"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// DefaultCommandTimeout is the timeout, in seconds, of sandbox_exec and
// sandbox_command when `timeout` is not set.
const DefaultCommandTimeout = 60

// stderrTailLines is how many trailing lines of stderr a failure shows.
const stderrTailLines = 20

// commandModel holds the arguments and results shared by the sandbox_exec
// data source and the sandbox_command resource.
type commandModel struct {
	WorkspaceID          types.String `tfsdk:"workspace_id"`
	Command              types.List   `tfsdk:"command"`
	Shell                types.String `tfsdk:"shell"`
	User                 types.String `tfsdk:"user"`
	WorkingDir           types.String `tfsdk:"working_dir"`
	Environment          types.Map    `tfsdk:"environment"`
	Timeout              types.Int64  `tfsdk:"timeout"`
	AllowNonZeroExitCode types.Bool   `tfsdk:"allow_non_zero_exit_code"`
	ExpectExitCodes      types.List   `tfsdk:"expect_exit_codes"`
	ExitCode             types.Int64  `tfsdk:"exit_code"`
	Stdout               types.String `tfsdk:"stdout"`
	Stderr               types.String `tfsdk:"stderr"`
	StdoutBase64         types.String `tfsdk:"stdout_base64"`
	StderrBase64         types.String `tfsdk:"stderr_base64"`
}

// commandDocs are the descriptions of the shared attributes.
var commandDocs = map[string]string{
	"workspace_id": "`id` of the `sandbox_workspace` to run in.",
	"command": "Command vector, run without a shell (`[\"python3\", \"--version\"]`). Exactly one of `command` and " +
		"`shell` is required.",
	"shell": "Shell script, run as `sh -lc <script>` as the Python SDK's `exec(..., shell=True)` does.",
	"user": "User to run as: one of the workspace's `users`, `root`, a user of the image, or a numeric uid; a name the " +
		"existing workspace has no account for fails the plan. On Docker it is passed natively to `docker exec`; the " +
		"local backend runs commands as the provider's own user and refuses this argument (at plan once the workspace exists).",
	"working_dir": "Workspace-relative working directory (default: the workspace root), checked with the Python SDK's " +
		"`normalize_sandbox_cwd` rules: POSIX separators only, not blank, not absolute, no `..` segments.",
	"environment": "Variables added to the command's environment, over the workspace's `environment`. Kept in state " +
		"and shown in plans in clear text: give a secret with `sandbox_command.environment_wo` or `ephemeral \"sandbox_exec\"`.",
	"timeout": fmt.Sprintf("Seconds the command may run (1 to 86400, default %d). On expiry every process it started "+
		"is killed (its process group, and those that moved to another group or session) and the run fails naming them.", DefaultCommandTimeout),
	"allow_non_zero_exit_code": "When `false` (default), an exit code outside `expect_exit_codes` fails with an error " +
		"naming the command, the exit code and the tail of stderr. When `true`, any exit code is just recorded in " +
		"`exit_code` (the shortcut for every code; conflicts with `expect_exit_codes`).",
	"expect_exit_codes": "Exit codes that count as a result (0 to 255, default `[0]`), e.g. `[0, 1]` for a grader; " +
		"any other code fails the run. A command the runtime could not start (missing `working_dir`, unknown `user`, " +
		"program not found) always fails, naming the cause. Conflicts with `allow_non_zero_exit_code`.",
	"exit_code":     "Exit code of the command.",
	"stdout":        "Standard output as text; bytes that are not UTF-8 are replaced by U+FFFD (use `stdout_base64`).",
	"stderr":        "Standard error as text; bytes that are not UTF-8 are replaced by U+FFFD (use `stderr_base64`).",
	"stdout_base64": "Standard output, exactly, in standard base64.",
	"stderr_base64": "Standard error, exactly, in standard base64.",
}

// run executes the command of m, with secretEnv added to its environment,
// and fills its results. The values of secretEnv and of the workspace's own
// secret environment are redacted from every diagnostic and, when
// redactOutput is set, from the recorded output. Diagnostics carry the
// attribute they are about where there is one.
func (m *commandModel) run(ctx context.Context, eng *workspace.Engine, secretEnv map[string]string, redactOutput bool) diag.Diagnostics {
	var diags diag.Diagnostics
	var argv []string
	if !m.Shell.IsNull() {
		argv = workspace.ShellArgv(m.Shell.ValueString())
	} else {
		diags.Append(m.Command.ElementsAs(ctx, &argv, false)...)
	}
	env := map[string]string{}
	diags.Append(m.Environment.ElementsAs(ctx, &env, false)...)
	if diags.HasError() {
		return diags
	}
	timeout := int64(DefaultCommandTimeout)
	if !m.Timeout.IsNull() {
		timeout = m.Timeout.ValueInt64()
	}
	req := sandbox.ExecRequest{
		Argv: argv, User: m.User.ValueString(), WorkDir: m.WorkingDir.ValueString(),
		Env: env, Timeout: time.Duration(timeout) * time.Second,
	}
	var res workspace.SecretExec
	ws, err := eng.Open(ctx, m.WorkspaceID.ValueString())
	if err == nil {
		res, err = ws.ExecSecret(ctx, req, secretEnv)
	} else {
		res.Secrets = redact.NewSecrets(slices.Collect(maps.Values(secretEnv))...)
	}
	shown := res.Secrets.Text(commandString(argv))
	if req.User != "" {
		shown += " (as user " + req.User + ")"
	}
	if errors.Is(err, sandbox.ErrExecTimeout) {
		diags.AddAttributeError(path.Root("timeout"), "Command timed out",
			fmt.Sprintf("%s did not finish within %d seconds: %v", shown, timeout, err))
		return diags
	}
	var notStarted *sandbox.StartError
	if errors.As(err, &notStarted) {
		// Not the command's exit: no exit code covers it.
		attr := notStarted.Attr
		if attr == "command" && !m.Shell.IsNull() {
			attr = "shell"
		}
		diags.AddAttributeError(path.Root(attr), "Command could not start",
			posix.EscapeControl(fmt.Sprintf("%s could not start: %s.", shown, res.Secrets.Text(notStarted.Error()))))
		return diags
	}
	if err != nil {
		addEngineError(&diags, "Running "+shown+" failed", err)
		return diags
	}
	accepted, want := m.accepts(ctx, res.ExitCode, &diags)
	if diags.HasError() {
		return diags
	}
	if res.OOMKilled && !accepted {
		diags.AddError("Command ran out of memory",
			fmt.Sprintf("%s exited with code %d: it ran out of memory (the kernel's out-of-memory killer stopped it at the "+
				"workspace's memory limit, the docker block's memory). Raise memory, or add %d to expect_exit_codes "+
				"to record the exit instead of failing.", shown, res.ExitCode, res.ExitCode))
		return diags
	}
	if !accepted {
		stream, out := "stderr", res.Stderr
		if len(out) == 0 && len(res.Stdout) > 0 {
			stream, out = "stdout (stderr was empty)", res.Stdout
		}
		diags.AddError("Command failed",
			fmt.Sprintf("%s exited with code %d (expected %s).\n\nLast lines of %s:\n%s\n\nAdd the code to "+
				"expect_exit_codes (or set allow_non_zero_exit_code = true for any code) to record it instead of failing.",
				shown, res.ExitCode, want, stream, tail(res.Secrets.Text(string(out)), stderrTailLines)))
		return diags
	}
	if redactOutput {
		res.Stdout, res.Stderr = res.Secrets.Bytes(res.Stdout), res.Secrets.Bytes(res.Stderr)
	}
	m.ExitCode = types.Int64Value(int64(res.ExitCode))
	m.Stdout = types.StringValue(strings.ToValidUTF8(string(res.Stdout), "\uFFFD"))
	m.Stderr = types.StringValue(strings.ToValidUTF8(string(res.Stderr), "\uFFFD"))
	m.StdoutBase64 = types.StringValue(base64.StdEncoding.EncodeToString(res.Stdout))
	m.StderrBase64 = types.StringValue(base64.StdEncoding.EncodeToString(res.Stderr))
	return diags
}

// newRunID returns a random identifier for one command run.
func newRunID() string { return uuid.NewString() }

// commandString renders argv for messages, as the Python SDK's command_str.
func commandString(argv []string) string {
	return sandbox.ShellJoin(argv)
}

// tail returns the last n lines of s, or "(empty)".
func tail(s string, n int) string {
	s = strings.TrimRight(sandbox.EscapeTerminal(s), "\n")
	if s == "" {
		return "(empty)"
	}
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("... (%d earlier lines)", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// workingDirValidator checks working_dir with the Python SDK's
// normalize_sandbox_cwd rules at plan time.
type workingDirValidator struct{}

func (workingDirValidator) Description(context.Context) string {
	return "must be a workspace-relative POSIX path without `..` segments"
}

func (v workingDirValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (workingDirValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := posix.NormalizeSandboxCwd(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid working directory",
			fmt.Sprintf("working_dir %q: %v", req.ConfigValue.ValueString(), err))
	}
}
