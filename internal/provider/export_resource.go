package provider

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var (
	_ resource.ResourceWithConfigure  = (*exportResource)(nil)
	_ resource.ResourceWithModifyPlan = (*exportResource)(nil)
)

// NewExportResource returns the sandbox_export resource: a whitelist of
// workspace files copied to a host directory.
func NewExportResource() resource.Resource { return &exportResource{} }

type exportResource struct {
	eng *workspace.Engine
}

type exportModel struct {
	ID           types.String   `tfsdk:"id"`
	WorkspaceID  types.String   `tfsdk:"workspace_id"`
	Paths        types.List     `tfsdk:"paths"`
	Destination  types.String   `tfsdk:"destination"`
	Triggers     types.Map      `tfsdk:"triggers"`
	Files        types.Map      `tfsdk:"files"`
	MaxBytes     types.Int64    `tfsdk:"max_bytes"`
	MaxFiles     types.Int64    `tfsdk:"max_files"`
	RequireMatch types.Bool     `tfsdk:"require_match"`
	MinFiles     types.Int64    `tfsdk:"min_files"`
	Timeouts     timeouts.Value `tfsdk:"timeouts"`

	// AllowSecrets opens the secret gate (secret_gate.go).
	AllowSecrets types.Bool `tfsdk:"allow_secrets"`
}

// defaultExportTimeout bounds an export whose timeouts block sets no
// create.
const defaultExportTimeout = 20 * time.Minute

func (r *exportResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_export"
}

func (r *exportResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Copies the workspace files matching `paths` to a host directory, on create and again (as a " +
			"replacement) whenever an argument or `triggers` changes. Streamed and atomic per file; a symlink is never " +
			"followed out of the workspace or the destination. A host file already at a target path (or an exported " +
			"copy changed since) fails the export and is never replaced. Destroy removes only the files it exported. " +
			"What comes out of the workspace is bounded: at most `max_files` files and `max_bytes` data bytes (sparse " +
			"files are written sparse, their holes not counted), within the `create` timeout (default 20 minutes); " +
			"a failure leaves no partial file in the destination.",
		Blocks: map[string]schema.Block{"timeouts": timeouts.Block(ctx, timeouts.Opts{Create: true,
			CreateDescription: "How long the export may take (a duration such as `\"30m\"`). Default `\"20m\"`."})},
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "Random id of this export.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"workspace_id": sourceWorkspaceAttribute("export from"),
			"paths": schema.ListAttribute{
				Required: true, ElementType: types.StringType,
				MarkdownDescription: "Workspace-relative globs of the files to copy: `*`, `?` and `[...]` within a segment, " +
					"`**` for any number of segments (`output/**`, `logs/*.log`).",
				Validators:    []validator.List{listvalidator.SizeAtLeast(1), listvalidator.ValueStringsAre(globValidator{})},
				PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplace()},
			},
			"destination": schema.StringAttribute{
				Required: true, MarkdownDescription: "Host directory the files land in, under their workspace-relative " +
					"paths; relative to the working directory unless absolute; created when missing.",
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"require_match": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "Whether each glob of `paths` must match a file, else the export fails naming the " +
					"glob and listing its directory's first 20 names. Unset, a glob without wildcards (`results/score.json`) " +
					"must match and one with wildcards (`logs/*.log`) may match nothing; `true` requires every glob to " +
					"match; `false` none. Checked before anything is written.",
			},
			"min_files": schema.Int64Attribute{
				Optional: true,
				MarkdownDescription: "Fewest files the export must find (default 0): fewer fail it before anything is " +
					"written. A change applies to the next export.",
				Validators: []validator.Int64{int64validator.AtLeast(0)},
			},
			"triggers": retakeTriggersAttribute("exports"),
			"files":    fileDigestsAttribute("exported"),
		},
	}
	for name, a := range limitAttributes("this export") {
		resp.Schema.Attributes[name] = a
	}
	resp.Schema.Attributes["allow_secrets"] = allowSecretsAttribute("export")
}

func (r *exportResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.eng = engineFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *exportResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m exportModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	var globs []string
	resp.Diagnostics.Append(m.Paths.ElementsAs(ctx, &globs, false)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := m.Timeouts.Create(ctx, defaultExportTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ws, err := r.eng.Open(ctx, m.WorkspaceID.ValueString())
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("workspace_id"), "Workspace not found", err.Error())
		return
	}
	res, err := ws.Export(ctx, workspace.ExportRequest{Paths: globs, Destination: m.Destination.ValueString(),
		Limits: outputLimits(m.MaxBytes, m.MaxFiles, r.eng.OutputLimits), Require: requiredGlobs(globs, m.RequireMatch),
		MinFiles: m.MinFiles.ValueInt64(), AllowSecrets: m.AllowSecrets.ValueBool()})
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("%w: the export did not finish within its create timeout of %s", err, timeout)
	}
	var noMatch *workspace.NoMatchError
	var tooFew *workspace.TooFewFilesError
	switch {
	case errors.As(err, &noMatch):
		resp.Diagnostics.AddAttributeError(path.Root("paths"), "Nothing to export", posix.EscapeControl(err.Error())+
			".\n\nSet require_match = false if this glob may match nothing.")
		return
	case errors.As(err, &tooFew):
		resp.Diagnostics.AddAttributeError(path.Root("min_files"), "Too few files to export", err.Error())
		return
	}
	if err != nil {
		// What was exported before the failure is removed again.
		_, _ = r.eng.RemoveExport(m.Destination.ValueString(), res.Files, res.Dirs)
		resp.Diagnostics.AddAttributeError(path.Root("destination"), "Export failed", err.Error())
		return
	}
	if len(res.Skipped) > 0 {
		resp.Diagnostics.AddWarning("Exported files skipped", skippedNames(res.Skipped))
	}
	m.ID, m.Files = types.StringValue(newRunID()), digestMap(res.Files)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	resp.Diagnostics.Append(setExportDirs(ctx, resp.Private, res.Dirs)...)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateExportOursKey, nil)...)
}

// fileMap is the recorded files attribute.
func (m exportModel) fileMap(ctx context.Context, diags *diag.Diagnostics) map[string]string {
	files := map[string]string{}
	diags.Append(m.Files.ElementsAs(ctx, &files, false)...)
	return files
}

// Read keeps state as it is: the copies outlive the workspace, and a copy
// missing or changed on the host is found by ModifyPlan, which replaces
// the export (so destroy still knows every file it wrote).
func (r *exportResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m exportModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
}

// Update changes only max_bytes, max_files, require_match, min_files or
// timeouts, which bound the next export: every other argument replaces.
func (r *exportResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m exportModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Delete removes the exported files that still hold what was written.
func (r *exportResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m exportModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	dirs, diags := exportDirs(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	kept, err := r.eng.RemoveExport(m.Destination.ValueString(), m.fileMap(ctx, &resp.Diagnostics), dirs)
	if err != nil {
		resp.Diagnostics.AddError("Cannot remove the exported files", err.Error())
		return
	}
	if len(kept) > 0 {
		resp.Diagnostics.AddWarning("Changed exported files left in place", strings.Join(kept, ", "))
	}
}

// globValidator checks an export glob at plan time.
type globValidator struct{}

func (globValidator) Description(context.Context) string {
	return "must be a workspace-relative glob without `..`"
}

func (v globValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (globValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := workspace.ValidGlob(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid glob", err.Error())
	}
}

// skippedNames says which matching files were left out, quoted so that a
// control character in a name shows as an escape, never acts on a terminal.
func skippedNames(names []string) string {
	const show = 20
	quoted := make([]string, 0, min(len(names), show))
	for _, n := range names[:min(len(names), show)] {
		quoted = append(quoted, strconv.Quote(n))
	}
	more := ""
	if len(names) > show {
		more = fmt.Sprintf(" and %d more", len(names)-show)
	}
	return fmt.Sprintf("%d file(s) matching paths were not exported: their names hold a backslash or a control "+
		"character, which the host cannot take as they are: %s%s. Rename them in the workspace to export them.",
		len(names), strings.Join(quoted, ", "), more)
}

// requiredGlobs returns the globs that must match: every one with
// require_match = true, none with false, and unset those without a
// wildcard (a file named explicitly).
func requiredGlobs(globs []string, requireMatch types.Bool) []string {
	if !requireMatch.IsNull() && !requireMatch.IsUnknown() {
		if requireMatch.ValueBool() {
			return globs
		}
		return nil
	}
	var out []string
	for _, g := range globs {
		if workspace.LiteralGlob(g) {
			out = append(out, g)
		}
	}
	return out
}
