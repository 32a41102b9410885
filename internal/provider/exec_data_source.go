package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

var (
	_ datasource.DataSourceWithConfigure        = (*execDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*execDataSource)(nil)
)

// NewExecDataSource returns the sandbox_exec data source: a command run in
// a workspace whenever the data source is read.
func NewExecDataSource() datasource.DataSource { return &execDataSource{} }

type execDataSource struct {
	eng *workspace.Engine
}

func (d *execDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_exec"
}

func (d *execDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Runs a command in a workspace each time it is read (every plan and apply), and exposes its " +
			"exit code and output, which are stored in state. Use it to probe a workspace (`python3 --version`); use " +
			"`ephemeral \"sandbox_exec\"` when the output or the environment is secret, and `sandbox_command` for a " +
			"command that should run once, on create and when its `triggers` change.",
		Attributes: execAttributes(),
	}
}

// execAttributes are the attributes of the sandbox_exec data source, which
// the ephemeral sandbox_exec shares.
func execAttributes() map[string]schema.Attribute {
	opt := func(name string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, MarkdownDescription: commandDocs[name]}
	}
	out := func(name string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: commandDocs[name]}
	}
	return map[string]schema.Attribute{
		"workspace_id": schema.StringAttribute{
			Required: true, MarkdownDescription: commandDocs["workspace_id"],
			Validators: []validator.String{workspaceIDValidator{}},
		},
		"command": schema.ListAttribute{
			Optional: true, ElementType: types.StringType, MarkdownDescription: commandDocs["command"],
			Validators: []validator.List{listvalidator.SizeAtLeast(1), argvValidator{}},
		},
		"shell": func() schema.StringAttribute {
			a := opt("shell")
			a.Validators = []validator.String{scriptValidator}
			return a
		}(),
		"user": opt("user"),
		"working_dir": schema.StringAttribute{
			Optional: true, MarkdownDescription: commandDocs["working_dir"],
			Validators: []validator.String{workingDirValidator{}},
		},
		"environment": schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: commandDocs["environment"],
			Validators: []validator.Map{envMapValidator{}}},
		"timeout": schema.Int64Attribute{
			Optional: true, MarkdownDescription: commandDocs["timeout"],
			Validators: []validator.Int64{int64validator.Between(1, 86400)},
		},
		"allow_non_zero_exit_code": schema.BoolAttribute{Optional: true, MarkdownDescription: commandDocs["allow_non_zero_exit_code"]},
		"expect_exit_codes": schema.ListAttribute{Optional: true, ElementType: types.Int64Type,
			MarkdownDescription: commandDocs["expect_exit_codes"], Validators: expectExitCodesValidators()},
		"exit_code":     schema.Int64Attribute{Computed: true, MarkdownDescription: commandDocs["exit_code"]},
		"stdout":        out("stdout"),
		"stderr":        out("stderr"),
		"stdout_base64": out("stdout_base64"),
		"stderr_base64": out("stderr_base64"),
	}
}

func (d *execDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("command"), path.MatchRoot("shell")),
		datasourcevalidator.Conflicting(path.MatchRoot("allow_non_zero_exit_code"), path.MatchRoot("expect_exit_codes")),
		localUserValidator{},
	}
}

func (d *execDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.eng = engineFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *execDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m commandModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(m.run(ctx, d.eng, nil, true)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
