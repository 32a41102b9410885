package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	snapshotpkg "github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/snapshot"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// The inputs object of sandbox_snapshot and of data.sandbox_snapshots:
// what determines a prepared environment, hashed into inputs_sha256.
const inputsDescription = "What determines the prepared environment, hashed into `inputs_sha256` at plan: `image`, " +
	"`image_digest`, `entries` (path → SHA-256 of the declared entries) and `commands` (the setup commands in order, " +
	"as given to `sandbox_command`; only the names of `environment` count). Share it with the commands through a `local`."

var inputsDescriptions = map[string]string{
	"image":        "Image reference the workspace starts from (`docker.image`).",
	"image_digest": "The image's digest, where known.",
	"entries":      "Workspace-relative path → SHA-256 (hex) of each declared entry.",
	"commands":     "Setup commands in the order they run: `command` (argv) or `shell`, `working_dir`, and `environment` (names hashed, values not).",
}

// The checks of inputs shared by the resource and the data source: entry
// digests are SHA-256 hex, and each command is argv or a shell script.
var (
	inputsEntriesValidators = []validator.Map{mapvalidator.KeysAre(entryPathValidator{}),
		mapvalidator.ValueStringsAre(stringvalidator.RegexMatches(sha256Hex, "must be a SHA-256 (64 lower-case hex digits)"))}
	inputsCommandValidators = []validator.Object{commandOrShell{}}
)

// commandOrShell requires exactly one of command and shell in a command of
// inputs (objectvalidator.ExactlyOneOf counts the object itself as one).
type commandOrShell struct{}

func (commandOrShell) Description(context.Context) string {
	return "exactly one of `command` and `shell`"
}

func (v commandOrShell) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (commandOrShell) ValidateObject(_ context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	set := 0
	for _, name := range []string{"command", "shell"} {
		v, ok := req.ConfigValue.Attributes()[name]
		if !ok || v.IsUnknown() {
			return
		}
		if !v.IsNull() {
			set++
		}
	}
	if set != 1 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid setup command", req.Path.String()+
			": set exactly one of command (argv) and shell (a script), as on the sandbox_command it stands for.")
	}
}

func inputsAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true, MarkdownDescription: inputsDescription + " Changing it takes the snapshot again (a replacement).",
		Attributes: map[string]schema.Attribute{
			"image":        schema.StringAttribute{Optional: true, MarkdownDescription: inputsDescriptions["image"]},
			"image_digest": schema.StringAttribute{Optional: true, MarkdownDescription: inputsDescriptions["image_digest"]},
			"entries": schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: inputsDescriptions["entries"],
				Validators: inputsEntriesValidators},
			"commands": schema.ListNestedAttribute{Optional: true, NestedObject: schema.NestedAttributeObject{
				Validators: inputsCommandValidators,
				Attributes: map[string]schema.Attribute{
					"command":     schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Argv."},
					"shell":       schema.StringAttribute{Optional: true, MarkdownDescription: "Shell script."},
					"working_dir": schema.StringAttribute{Optional: true, MarkdownDescription: "Working directory."},
					"environment": schema.MapAttribute{Optional: true, ElementType: types.StringType,
						MarkdownDescription: "Environment; only the names are hashed."},
				}},
				MarkdownDescription: inputsDescriptions["commands"], Validators: []validator.List{listvalidator.SizeAtLeast(1)}},
		},
		PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplace()},
	}
}

func inputsDataSourceAttribute() dschema.SingleNestedAttribute {
	return dschema.SingleNestedAttribute{
		Optional: true, MarkdownDescription: "The same object as `sandbox_snapshot.inputs`; its digest is the " +
			"`inputs_sha256` looked for. Set exactly one of `inputs` and `inputs_sha256`.",
		Attributes: map[string]dschema.Attribute{
			"image":        dschema.StringAttribute{Optional: true, MarkdownDescription: inputsDescriptions["image"]},
			"image_digest": dschema.StringAttribute{Optional: true, MarkdownDescription: inputsDescriptions["image_digest"]},
			"entries": dschema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: inputsDescriptions["entries"],
				Validators: inputsEntriesValidators},
			"commands": dschema.ListNestedAttribute{Optional: true, NestedObject: dschema.NestedAttributeObject{
				Validators: inputsCommandValidators,
				Attributes: map[string]dschema.Attribute{
					"command":     dschema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Argv."},
					"shell":       dschema.StringAttribute{Optional: true, MarkdownDescription: "Shell script."},
					"working_dir": dschema.StringAttribute{Optional: true, MarkdownDescription: "Working directory."},
					"environment": dschema.MapAttribute{Optional: true, ElementType: types.StringType,
						MarkdownDescription: "Environment; only the names are hashed."},
				}},
				MarkdownDescription: inputsDescriptions["commands"], Validators: []validator.List{listvalidator.SizeAtLeast(1)}},
		},
	}
}

type inputsModel struct {
	Image       types.String `tfsdk:"image"`
	ImageDigest types.String `tfsdk:"image_digest"`
	Entries     types.Map    `tfsdk:"entries"`
	Commands    types.List   `tfsdk:"commands"`
}

type inputsCommandModel struct {
	Command     types.List   `tfsdk:"command"`
	Shell       types.String `tfsdk:"shell"`
	WorkingDir  types.String `tfsdk:"working_dir"`
	Environment types.Map    `tfsdk:"environment"`
}

// inputsSHA256 is the digest of o; ok is false when o is null or not
// wholly known yet.
func inputsSHA256(ctx context.Context, o types.Object, diags *diag.Diagnostics) (sum string, ok bool) {
	if o.IsNull() || o.IsUnknown() {
		return "", false
	}
	if tv, err := o.ToTerraformValue(ctx); err != nil || !tv.IsFullyKnown() {
		return "", false
	}
	var m inputsModel
	diags.Append(o.As(ctx, &m, basetypes.ObjectAsOptions{})...)
	var in snapshotpkg.Inputs
	in.Image, in.ImageDigest = m.Image.ValueString(), m.ImageDigest.ValueString()
	diags.Append(m.Entries.ElementsAs(ctx, &in.Entries, false)...)
	var cmds []inputsCommandModel
	diags.Append(m.Commands.ElementsAs(ctx, &cmds, false)...)
	for _, c := range cmds {
		ic := snapshotpkg.InputCommand{Shell: c.Shell.ValueString(), WorkingDir: c.WorkingDir.ValueString()}
		diags.Append(c.Command.ElementsAs(ctx, &ic.Command, false)...)
		for name := range c.Environment.Elements() {
			ic.Environment = append(ic.Environment, name)
		}
		in.Commands = append(in.Commands, ic)
	}
	if diags.HasError() {
		return "", false
	}
	return in.SHA256(), true
}

// inputsSHA256Modifier plans inputs_sha256 from the planned inputs: known
// at plan whenever they are.
type inputsSHA256Modifier struct{}

func (inputsSHA256Modifier) Description(context.Context) string {
	return "the digest of inputs, known at plan when inputs are"
}

func (m inputsSHA256Modifier) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (inputsSHA256Modifier) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var o types.Object
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("inputs"), &o)...)
	switch {
	case o.IsNull():
		resp.PlanValue = types.StringNull()
	case o.IsUnknown():
		resp.PlanValue = types.StringUnknown()
	default:
		if sum, ok := inputsSHA256(ctx, o, &resp.Diagnostics); ok {
			resp.PlanValue = types.StringValue(sum)
		} else {
			resp.PlanValue = types.StringUnknown()
		}
	}
}

func inputsSHA256Attribute() schema.StringAttribute {
	return schema.StringAttribute{Computed: true, PlanModifiers: []planmodifier.String{inputsSHA256Modifier{}},
		MarkdownDescription: "SHA-256 (hex) of `inputs` (`" + snapshotpkg.InputsVersion + "`: canonical JSON, keys sorted), " +
			"known at plan whenever `inputs` is; null without `inputs`. Recorded where `data.sandbox_snapshots` finds it: " +
			"an index `<snapshot_id>.inputs.json` beside a `local` or `s3` archive, the label `sandbox.snapshot_inputs_sha256` " +
			"of an `image`."}
}

// writeIndex records a local snapshot taken with inputs beside its
// archive; a failure removes the archive again (it could not be found).
func (r *snapshotResource) writeIndex(base string, m snapshotResourceModel, diags *diag.Diagnostics) {
	if m.InputsSHA256.IsNull() || m.InputsSHA256.IsUnknown() {
		return
	}
	err := r.eng.WriteSnapshotIndex(base, workspace.SnapshotIndex{SnapshotID: m.SnapshotID.ValueString(),
		InputsSHA256: m.InputsSHA256.ValueString(), SHA256: m.SHA256.ValueString(), Size: m.Size.ValueInt64()})
	if err == nil {
		return
	}
	diags.AddError("Snapshot failed", err.Error())
	cctx, cancel := cleanupContext(context.Background())
	defer cancel()
	if rerr := r.eng.RemoveArchive(cctx, m.Path.ValueString(), m.SHA256.ValueString()); rerr != nil {
		diags.AddWarning("The archive was not removed", rerr.Error())
	}
}
