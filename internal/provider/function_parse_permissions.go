package provider

import (
	"context"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var permissionsObjectTypes = map[string]attr.Type{
	"owner": types.Int64Type, "group": types.Int64Type, "other": types.Int64Type,
	"directory": types.BoolType, "mode": types.Int64Type, "octal": types.StringType, "string": types.StringType,
}

var _ function.Function = (*parsePermissionsFunction)(nil)

// NewParsePermissionsFunction returns parse_permissions(permissions string) object.
func NewParsePermissionsFunction() function.Function { return &parsePermissionsFunction{} }

type parsePermissionsFunction struct{}

func (f *parsePermissionsFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "parse_permissions"
}

func (f *parsePermissionsFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Parse a permissions string as the Python SDK's Permissions",
		MarkdownDescription: "Parses an `ls -l` style string with the Python SDK's `Permissions.from_str` (an ACL `+`, " +
			"xattr `@` or SELinux `.` marker is dropped; `s`/`t` count as execute, `S`/`T` as not) or an octal string " +
			"(`\"0750\"`, `\"750\"`). Returns `{owner, group, other, directory, mode, octal, string}`: the three permission " +
			"triplets (0-7), the directory flag, `mode` = `to_mode()` (with the directory bit 0o040000, as a number), " +
			"`octal` the 4-digit permission bits (`\"0750\"`) and `string` the canonical form (`\"drwxr-x---\"`). " +
			"Bad input fails with the Python SDK's message, e.g. `invalid permissions string length: '-rw-r--r-'`.",
		Parameters: []function.Parameter{
			function.StringParameter{Name: "permissions", MarkdownDescription: "The permissions string."},
		},
		Return: function.ObjectReturn{AttributeTypes: permissionsObjectTypes},
	}
}

func (f *parsePermissionsFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var s string
	resp.Error = function.ConcatFuncErrors(resp.Error, req.Arguments.Get(ctx, &s))
	if resp.Error != nil {
		return
	}
	p, err := posix.ParsePermissions(s)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(0, err.Error())
		return
	}
	obj, diags := types.ObjectValue(permissionsObjectTypes, map[string]attr.Value{
		"owner": types.Int64Value(int64(p.Owner)), "group": types.Int64Value(int64(p.Group)),
		"other": types.Int64Value(int64(p.Other)), "directory": types.BoolValue(p.Directory),
		"mode": types.Int64Value(int64(p.ToMode())), "octal": types.StringValue(p.ChmodArg()),
		"string": types.StringValue(p.String()),
	})
	resp.Error = function.ConcatFuncErrors(resp.Error, function.FuncErrorFromDiags(ctx, diags))
	if resp.Error != nil {
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, obj))
}
