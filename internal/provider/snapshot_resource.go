package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

var _ resource.ResourceWithConfigure = (*snapshotResource)(nil)

// NewSnapshotResource returns the sandbox_snapshot resource: a tar of a
// workspace's root as the Python SDK persists it, written to a host
// directory.
func NewSnapshotResource() resource.Resource { return &snapshotResource{} }

type snapshotResource struct {
	eng *workspace.Engine
}

type snapshotLocalModel struct {
	BasePath types.String `tfsdk:"base_path"`
}

type snapshotResourceModel struct {
	ID           types.String        `tfsdk:"id"`
	WorkspaceID  types.String        `tfsdk:"workspace_id"`
	Local        *snapshotLocalModel `tfsdk:"local"`
	Exclude      types.List          `tfsdk:"exclude"`
	ManifestJSON types.String        `tfsdk:"manifest_json"`
	Triggers     types.Map           `tfsdk:"triggers"`
	SnapshotID   types.String        `tfsdk:"snapshot_id"`
	Path         types.String        `tfsdk:"path"`
	SHA256       types.String        `tfsdk:"sha256"`
	Size         types.Int64         `tfsdk:"size"`
	FileCount    types.Int64         `tfsdk:"file_count"`
	Fingerprint  types.String        `tfsdk:"fingerprint"`
	Files        types.Map           `tfsdk:"files"`
}

func (r *snapshotResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_snapshot"
}

func (r *snapshotResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	computed := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc, PlanModifiers: keep}
	}
	computedInt := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, MarkdownDescription: desc,
			PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()}}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A tar of a workspace's root as the Python SDK persists it (workspace-relative `.`-rooted " +
			"members, without `exclude` paths, mount targets or helper files), taken on create and again (as a " +
			"replacement) whenever an argument or `triggers` changes. Destroy removes the archive it wrote; a missing " +
			"or altered archive plans a new snapshot.",
		Attributes: map[string]schema.Attribute{
			"id":           computed("The snapshot id (same as `snapshot_id`)."),
			"workspace_id": sourceWorkspaceAttribute("snapshot"),
			"exclude": schema.ListAttribute{
				Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Workspace-relative paths left out of the archive, with everything below them: wire " +
					"the `path` of every entry declared `ephemeral = true`. A path overlapping a mount path fails with the " +
					"Python SDK's `persist workspace skip path must not overlap mount path`.",
				Validators:    []validator.List{listvalidator.ValueStringsAre(entryPathValidator{})},
				PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplace()},
			},
			"manifest_json": schema.StringAttribute{
				Optional: true, MarkdownDescription: "The workspace's manifest as the Python SDK's JSON (such as " +
					"`data.sandbox_manifest.x.json`), whose digest enters `fingerprint`. Default: the Python SDK's default " +
					"manifest with the workspace's root.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"triggers":    retakeTriggersAttribute("takes the snapshot"),
			"snapshot_id": computed("Random id of the snapshot; the archive is `<base_path>/<snapshot_id>.tar`."),
			"path":        computed("Host path of the archive, relative to the working directory when `base_path` is."),
			"sha256":      computed("SHA-256 (hex) of the archive file."),
			"size":        computedInt("Size of the archive file in bytes."),
			"file_count":  computedInt("Number of regular files in the archive."),
			"fingerprint": computed("The Python SDK's workspace fingerprint (`workspace_tar_sha256_v1`): SHA-256 (hex) of the " +
				"archive followed by the manifest digest."),
			"files": fileDigestsAttribute("in the archive"),
		},
		Blocks: map[string]schema.Block{
			"local": schema.SingleNestedBlock{
				MarkdownDescription: "Write the archive to a host directory (required).",
				Attributes: map[string]schema.Attribute{
					"base_path": schema.StringAttribute{
						Required: true, MarkdownDescription: "Host directory of the archive, relative to the working " +
							"directory unless absolute; created when missing.",
						Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
						PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
					},
				},
				Validators:    []validator.Object{objectvalidator.IsRequired()},
				PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplace()},
			},
		},
	}
}

func (r *snapshotResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.eng = engineFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *snapshotResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m snapshotResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if m.Local == nil {
		resp.Diagnostics.AddAttributeError(path.Root("local"), "Missing local block", "local { base_path = ... } is required.")
		return
	}
	var exclude []string
	resp.Diagnostics.Append(m.Exclude.ElementsAs(ctx, &exclude, false)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ws, err := r.eng.Open(ctx, m.WorkspaceID.ValueString())
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("workspace_id"), "Workspace not found", err.Error())
		return
	}
	var manifest []byte
	if !m.ManifestJSON.IsNull() {
		manifest = []byte(m.ManifestJSON.ValueString())
	}
	id := newRunID()
	res, err := ws.Snapshot(ctx, workspace.SnapshotRequest{BasePath: m.Local.BasePath.ValueString(), SnapshotID: id,
		Exclude: exclude, ManifestJSON: manifest})
	if err != nil {
		resp.Diagnostics.AddError("Snapshot failed", err.Error())
		return
	}
	m.ID, m.SnapshotID, m.Path = types.StringValue(id), types.StringValue(id), types.StringValue(res.Path)
	m.SHA256, m.Size, m.Fingerprint = types.StringValue(res.SHA256), types.Int64Value(res.Size), types.StringValue(res.Fingerprint)
	m.FileCount, m.Files = types.Int64Value(int64(res.FileCount)), digestMap(res.Files)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Read hashes the archive: a missing or altered one leaves state, so the
// next apply takes the snapshot again. The workspace is not consulted: a
// snapshot outlives it.
func (r *snapshotResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m snapshotResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	st, err := r.eng.ReadArchive(m.Path.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the snapshot archive", err.Error())
		return
	}
	if !st.Exists || st.SHA256 != m.SHA256.ValueString() {
		resp.State.RemoveResource(ctx)
	}
}

// Update is never called with a change: every argument replaces.
func (r *snapshotResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m snapshotResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Delete removes the archive if it still holds what was written.
func (r *snapshotResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m snapshotResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	err := r.eng.RemoveArchive(m.Path.ValueString(), m.SHA256.ValueString())
	switch {
	case errors.Is(err, workspace.ErrArchiveChanged):
		resp.Diagnostics.AddWarning("Snapshot archive left in place", err.Error())
	case err != nil:
		resp.Diagnostics.AddError("Cannot remove the snapshot archive", fmt.Sprintf("%s: %v", m.Path.ValueString(), err))
	}
}
