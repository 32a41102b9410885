package provider

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/function"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

var _ function.Function = (*workspacePathFunction)(nil)

// NewWorkspacePathFunction returns workspace_path(root string, path string) string.
func NewWorkspacePathFunction() function.Function { return &workspacePathFunction{} }

type workspacePathFunction struct{}

func (f *workspacePathFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "workspace_path"
}

func (f *workspacePathFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Resolve a workspace-relative path under a root",
		MarkdownDescription: "The Python SDK's `resolve_workspace_path(root, path)` without absolute paths: " +
			"backslashes are read as separators, `\"\"` and `.` give the root, and the result is `root/path`. An absolute " +
			"or Windows drive path fails with reason `absolute` (`manifest path must be relative: <path>`), any `..` " +
			"segment with reason `escape_root` (`manifest path must not escape root: <path>`). `root` must be absolute.",
		Parameters: []function.Parameter{
			function.StringParameter{Name: "root", MarkdownDescription: "Absolute workspace root."},
			function.StringParameter{Name: "path", MarkdownDescription: "Workspace-relative path."},
		},
		Return: function.StringReturn{},
	}
}

func (f *workspacePathFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var root, p string
	resp.Error = function.ConcatFuncErrors(resp.Error, req.Arguments.Get(ctx, &root, &p))
	if resp.Error != nil {
		return
	}
	out, err := posix.WorkspacePath(root, p)
	if err != nil {
		arg := int64(1)
		var se *sandbox.Error
		if !errors.As(err, &se) {
			arg = 0 // the root was refused
		}
		msg := err.Error()
		if se != nil && se.Reason() != "" {
			msg += " (reason: " + se.Reason() + ")"
		}
		resp.Error = function.NewArgumentFuncError(arg, msg)
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, out))
}
