package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

var (
	_ resource.ResourceWithConfigure        = (*commandResource)(nil)
	_ resource.ResourceWithConfigValidators = (*commandResource)(nil)
)

// NewCommandResource returns the sandbox_command resource: a command run in
// a workspace on create and whenever its arguments or triggers change.
func NewCommandResource() resource.Resource { return &commandResource{} }

type commandResource struct {
	eng *workspace.Engine
}

type commandResourceModel struct {
	commandModel
	ID                   types.String   `tfsdk:"id"`
	Triggers             types.Map      `tfsdk:"triggers"`
	EnvironmentWO        types.Map      `tfsdk:"environment_wo"`
	EnvironmentWOVersion types.Int64    `tfsdk:"environment_wo_version"`
	Timeouts             timeouts.Value `tfsdk:"timeouts"`
}

// commandCreateSlack is what timeouts.create adds by default to the
// command's own timeout: time to reach the workspace and start it.
const commandCreateSlack = time.Minute

// commandTimeouts is the timeouts block: only create runs anything (update
// records, delete runs nothing, read only looks the workspace up).
var commandTimeouts = map[string]opDefault{opCreate: {what: "running the command (workspace lookup included)",
	defText: "the command's `timeout` plus one minute"}}

func (r *commandResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_command"
}

func (r *commandResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	opt := func(name string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, MarkdownDescription: commandDocs[name], PlanModifiers: replace}
	}
	out := func(name string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: commandDocs[name],
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}}
	}
	envWO, envWOVersion := commandEnvWOAttributes()
	resp.Schema = schema.Schema{
		MarkdownDescription: "Runs a command in a workspace once, when created, and again (as a replacement) whenever " +
			"any argument or `triggers` changes; its exit code and output stay in state. Destroying it runs nothing. " +
			"A failed run (an exit code outside `expect_exit_codes`, a command that could not start, a timeout) fails the apply and leaves nothing in state, so the " +
			"next apply runs it again. `timeouts.create` (default: `timeout` plus one minute) bounds the whole run; on " +
			"expiry every process of the command is killed (in a container too) and nothing is recorded.",
		Blocks: map[string]schema.Block{"timeouts": timeoutsBlock(ctx, commandTimeouts)},
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed: true, MarkdownDescription: "Random id of this run.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"workspace_id": schema.StringAttribute{
				Required: true, MarkdownDescription: commandDocs["workspace_id"], PlanModifiers: []planmodifier.String{replaceWorkspaceID{}},
				Validators: []validator.String{workspaceIDValidator{}},
			},
			"command": schema.ListAttribute{
				Optional: true, ElementType: types.StringType, MarkdownDescription: commandDocs["command"],
				Validators:    []validator.List{listvalidator.SizeAtLeast(1), argvValidator{}},
				PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplace()},
			},
			"shell": func() schema.StringAttribute {
				a := opt("shell")
				a.Validators = []validator.String{scriptValidator}
				return a
			}(),
			"user": opt("user"),
			"working_dir": schema.StringAttribute{
				Optional: true, MarkdownDescription: commandDocs["working_dir"], PlanModifiers: replace,
				Validators: []validator.String{workingDirValidator{}},
			},
			"environment": schema.MapAttribute{
				Optional: true, ElementType: types.StringType, MarkdownDescription: commandDocs["environment"],
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
				Validators:    []validator.Map{envMapValidator{}},
			},
			"environment_wo":         envWO,
			"environment_wo_version": envWOVersion,
			"timeout": schema.Int64Attribute{
				Optional: true, Computed: true, Default: int64default.StaticInt64(DefaultCommandTimeout),
				MarkdownDescription: commandDocs["timeout"],
				Validators:          []validator.Int64{int64validator.Between(1, 86400)},
				PlanModifiers:       []planmodifier.Int64{int64planmodifier.RequiresReplace()},
			},
			"allow_non_zero_exit_code": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: commandDocs["allow_non_zero_exit_code"],
			},
			"expect_exit_codes": schema.ListAttribute{
				Optional: true, ElementType: types.Int64Type, MarkdownDescription: commandDocs["expect_exit_codes"] +
					" Changing it does not run the command again.",
				Validators: expectExitCodesValidators(),
			},
			"triggers": schema.MapAttribute{
				Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Arbitrary values; changing any of them runs the command again (as a replacement).",
				PlanModifiers:       []planmodifier.Map{mapplanmodifier.RequiresReplace()},
			},
			"exit_code": schema.Int64Attribute{
				Computed: true, MarkdownDescription: commandDocs["exit_code"],
				PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
			"stdout":        out("stdout"),
			"stderr":        out("stderr"),
			"stdout_base64": out("stdout_base64"),
			"stderr_base64": out("stderr_base64"),
		},
	}
}

func (r *commandResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{
		resourcevalidator.ExactlyOneOf(path.MatchRoot("command"), path.MatchRoot("shell")),
		resourcevalidator.Conflicting(path.MatchRoot("allow_non_zero_exit_code"), path.MatchRoot("expect_exit_codes")),
		envWOValidator{},
		localUserValidator{},
	}
}

func (r *commandResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.eng = engineFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *commandResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m commandResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	secretEnv := configEnvWO(ctx, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	def := time.Duration(DefaultCommandTimeout) * time.Second
	if !m.Timeout.IsNull() && !m.Timeout.IsUnknown() {
		def = time.Duration(m.Timeout.ValueInt64()) * time.Second
	}
	ctx, cancel, timer := startOp(ctx, m.Timeouts, opCreate, def+commandCreateSlack, &resp.Diagnostics)
	defer cancel()
	defer timer.finish("The command", &resp.Diagnostics)
	// A stopped or paused workspace is brought up for the run and put
	// back afterwards (see run_state).
	if ws, err := r.eng.Open(ctx, m.WorkspaceID.ValueString()); err == nil {
		done, ok := wakeForEntry(ctx, r.eng, ws, &resp.Diagnostics)
		if !ok {
			return
		}
		defer done()
	}
	resp.Diagnostics.Append(m.run(ctx, r.eng, secretEnv, true)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m.ID = types.StringValue(newRunID())
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Read keeps the recorded run; a workspace that vanished takes it along,
// so it runs again in the re-created workspace.
func (r *commandResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m commandResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if _, err := r.eng.Open(ctx, m.WorkspaceID.ValueString()); workspaceGone(err) {
		resp.State.RemoveResource(ctx)
	}
}

// Update only records allow_non_zero_exit_code and expect_exit_codes
// (and timeouts): every other argument
// replaces the resource, which runs the command again.
func (r *commandResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m commandResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Delete runs nothing: a command cannot be undone.
func (r *commandResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
