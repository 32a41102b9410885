package provider

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	snapshotpkg "github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/snapshot"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

var (
	_ resource.ResourceWithConfigure        = (*snapshotResource)(nil)
	_ resource.ResourceWithModifyPlan       = (*snapshotResource)(nil)
	_ resource.ResourceWithConfigValidators = (*snapshotResource)(nil)
	_ resource.ResourceWithValidateConfig   = (*snapshotResource)(nil)
)

// NewSnapshotResource returns the sandbox_snapshot resource: a tar of a
// workspace's root as the Python SDK persists it, written to a host
// directory or an S3 bucket.
func NewSnapshotResource() resource.Resource { return &snapshotResource{} }

type snapshotResource struct {
	eng *workspace.Engine
}

type snapshotLocalModel struct {
	BasePath types.String `tfsdk:"base_path"`
}

type snapshotResourceModel struct {
	ID            types.String        `tfsdk:"id"`
	WorkspaceID   types.String        `tfsdk:"workspace_id"`
	Local         *snapshotLocalModel `tfsdk:"local"`
	S3            *snapshotS3Model    `tfsdk:"s3"`
	Image         *snapshotImageModel `tfsdk:"image"`
	ImageID       types.String        `tfsdk:"image_id"`
	AllowSecrets  types.Bool          `tfsdk:"allow_secrets"`
	Exclude       types.List          `tfsdk:"exclude"`
	ManifestJSON  types.String        `tfsdk:"manifest_json"`
	Triggers      types.Map           `tfsdk:"triggers"`
	SnapshotID    types.String        `tfsdk:"snapshot_id"`
	Path          types.String        `tfsdk:"path"`
	URL           types.String        `tfsdk:"url"`
	SHA256        types.String        `tfsdk:"sha256"`
	Size          types.Int64         `tfsdk:"size"`
	FileCount     types.Int64         `tfsdk:"file_count"`
	Fingerprint   types.String        `tfsdk:"fingerprint"`
	Files         types.Map           `tfsdk:"files"`
	ExcludeUnsafe types.Bool          `tfsdk:"exclude_unsafe"`
	MaxBytes      types.Int64         `tfsdk:"max_bytes"`
	MaxFiles      types.Int64         `tfsdk:"max_files"`
	Timeouts      timeouts.Value      `tfsdk:"timeouts"`
	Inputs        types.Object        `tfsdk:"inputs"`
	InputsSHA256  types.String        `tfsdk:"inputs_sha256"`
}

// snapshotTimeouts are the defaults of the timeouts block: taking the
// snapshot streams the whole workspace; read and delete hash the archive.
var snapshotTimeouts = map[string]opDefault{
	opCreate: {def: 20 * time.Minute, what: "taking the snapshot (archive written and hashed)"},
	opRead:   {def: 10 * time.Minute, what: "reading the archive back (it is hashed)"},
	opDelete: {def: 10 * time.Minute, what: "removing the archive (it is hashed first)"},
}

func (r *snapshotResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_snapshot"
}

func (r *snapshotResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	computed := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc, PlanModifiers: keep}
	}
	computedInt := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, MarkdownDescription: desc,
			PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()}}
	}
	maxBytes, maxFiles := archiveLimitAttributes("in the archive (its size)", "members (files, directories and links) in the archive")
	resp.Schema = schema.Schema{
		MarkdownDescription: "A tar of a workspace's root as the Python SDK persists it (workspace-relative `.`-rooted " +
			"members, without ephemeral entries, `exclude` paths, mount targets or helper files), taken on create and again (as a " +
			"replacement) whenever an argument or `triggers` changes, to a host directory (`local`) or an S3 bucket " +
			"(`s3`); or, of a Docker workspace, its whole container filesystem as a local image (`image`). Destroy removes the archive it wrote; a missing or altered archive plans a new snapshot. " +
			"`timeouts`: create 20 minutes, read and delete 10; a snapshot cut short leaves no partial archive.",
		Attributes: map[string]schema.Attribute{
			"id":           computed("The snapshot id (same as `snapshot_id`)."),
			"workspace_id": sourceWorkspaceAttribute("snapshot"),
			"exclude": schema.ListAttribute{
				Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Workspace-relative paths left out of the archive, with everything below them, in " +
					"addition to the entries declared ephemeral (recorded with the workspace, left out without being listed). " +
					"A path overlapping a mount path fails with the Python SDK's `persist workspace skip path must not overlap mount path`.",
				Validators:    []validator.List{listvalidator.ValueStringsAre(entryPathValidator{})},
				PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplace()},
			},
			"manifest_json": schema.StringAttribute{
				Optional: true, MarkdownDescription: "The workspace's manifest as the Python SDK's JSON (such as " +
					"`data.sandbox_manifest.x.json`), whose digest enters `fingerprint`. Default: the Python SDK's default " +
					"manifest with the workspace's root.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"triggers": retakeTriggersAttribute("takes the snapshot"),
			"snapshot_id": computed("Random id of the snapshot; the archive is `<base_path>/<snapshot_id>.tar` or the " +
				"object `<prefix>/<snapshot_id>.tar`."),
			"path": computed("With `local`: host path of the archive, relative to the working directory when " +
				"`base_path` is. Null with `s3` and `image`."),
			"url":        computed("With `s3`: the object as `s3://<bucket>/<key>`, for `restore_from.url`. Null with `local` and `image`."),
			"sha256":     computed("SHA-256 (hex) of the archive. Null with `image`."),
			"size":       computedInt("Size of the archive in bytes; with `image`, the data bytes of the image's regular files."),
			"file_count": computedInt("Number of regular files in the archive (or the image)."),
			"fingerprint": computed("The Python SDK's workspace fingerprint (`workspace_tar_sha256_v1`): SHA-256 (hex) of the " +
				"archive followed by the manifest digest. Null with `image`."),
			"files": fileDigestsAttribute("in the archive"),
			"exclude_unsafe": schema.BoolAttribute{Optional: true, MarkdownDescription: "The snapshot applies " +
				"`restore_from`'s member rules as it is taken, so that it can be restored: by default a workspace path a " +
				"restore would refuse (a symlink whose target is absolute or resolves outside the root, through any chain " +
				"of links; a special file name) fails the snapshot, naming it. `true` leaves such paths out of the archive " +
				"instead, with a warning naming each. Default `false`.",
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()}},
			"max_bytes": maxBytes,
			"max_files": maxFiles,
			"image_id": computed("With `image`: the image's id (`sha256:...`), for `docker { image = ... }` of the workspaces " +
				"that fork it. Null with `local` and `s3`."),
			"allow_secrets": allowSecretsAttribute("snapshot"),
			"inputs":        inputsAttribute(),
			"inputs_sha256": inputsSHA256Attribute(),
		},
		Blocks: map[string]schema.Block{
			"local": schema.SingleNestedBlock{
				MarkdownDescription: "Write the archive to a host directory. Set exactly one of `local`, `s3` and `image`.",
				Attributes: map[string]schema.Attribute{
					"base_path": schema.StringAttribute{
						// Optional so that an absent block is valid; the block requires it.
						Optional: true, MarkdownDescription: "Host directory of the archive, relative to the working " +
							"directory unless absolute; created when missing. Required in the block.",
						Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
						PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
					},
				},
				Validators:    []validator.Object{objectvalidator.AlsoRequires(path.MatchRelative().AtName("base_path"))},
				PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplace()},
			},
			"s3":       snapshotS3Block(),
			"image":    snapshotImageBlock(),
			"timeouts": timeoutsBlock(ctx, snapshotTimeouts),
		},
	}
}

func (r *snapshotResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{resourcevalidator.ExactlyOneOf(path.MatchRoot("local"), path.MatchRoot("s3"),
		path.MatchRoot("image"))}
}

// ValidateConfig refuses a partial key pair, and an image snapshot of a
// workspace known not to be a Docker container, at plan time.
func (r *snapshotResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var image types.Object
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("image"), &image)...)
	if !image.IsNull() {
		var id types.String
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("workspace_id"), &id)...)
		validateImageWorkspace(id, &resp.Diagnostics)
	}
	var s3 types.Object
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("s3"), &s3)...)
	if resp.Diagnostics.HasError() || s3.IsNull() || s3.IsUnknown() {
		return
	}
	cfg := tfsdk.Config{Schema: req.Config.Schema, Raw: req.Config.Raw}
	s3Credentials(ctx, &cfg, path.Root("s3"), &resp.Diagnostics)
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
	if n := btoi(m.Local != nil) + btoi(m.S3 != nil) + btoi(m.Image != nil); n != 1 {
		resp.Diagnostics.AddError("Missing target block", "Set exactly one of local { base_path = ... }, s3 { bucket = ... } "+
			"and image { repository = ... }.")
		return
	}
	var exclude []string
	resp.Diagnostics.Append(m.Exclude.ElementsAs(ctx, &exclude, false)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, timer := startOp(ctx, m.Timeouts, opCreate, snapshotTimeouts[opCreate].def, &resp.Diagnostics)
	defer cancel()
	defer timer.finish("Taking the snapshot", &resp.Diagnostics)
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
	sreq := workspace.SnapshotRequest{SnapshotID: id, Exclude: exclude, ManifestJSON: manifest,
		Limits: engineOutputLimits(r.eng, m.MaxBytes, m.MaxFiles), ExcludeUnsafe: m.ExcludeUnsafe.ValueBool(),
		AllowSecrets: m.AllowSecrets.ValueBool()}
	m.ID, m.SnapshotID, m.ImageID = types.StringValue(id), types.StringValue(id), types.StringNull()
	switch {
	case m.Image != nil:
		r.createImage(ctx, ws, sreq, &m, &resp.Diagnostics)
	case m.S3 != nil:
		r.createS3(ctx, ws, sreq, req.Config, &m, resp.Private, &resp.Diagnostics)
	default:
		sreq.BasePath = m.Local.BasePath.ValueString()
		res, err := ws.Snapshot(ctx, sreq)
		if err != nil {
			resp.Diagnostics.AddError("Snapshot failed", snapshotFailure(err))
			return
		}
		m.Path, m.URL = types.StringValue(res.Path), types.StringNull()
		m.setSummary(res.Summary)
		warnExcluded(res.Excluded, &resp.Diagnostics)
		r.writeIndex(sreq.BasePath, m, &resp.Diagnostics)
	}
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	}
}

// snapshotFailure is the detail of a failed snapshot; an unsafe member
// says how to get past it.
func snapshotFailure(err error) string {
	if errors.Is(err, snapshotpkg.ErrUnsafeMember) {
		return err.Error() + ". A restore would refuse the archive: remove that path from the workspace, list it in " +
			"exclude, or set exclude_unsafe = true to leave every such path out."
	}
	return err.Error()
}

func (m *snapshotResourceModel) setSummary(sum snapshotpkg.Summary) {
	m.SHA256, m.Size, m.Fingerprint = types.StringValue(sum.SHA256), types.Int64Value(sum.Size), types.StringValue(sum.Fingerprint)
	m.FileCount, m.Files = types.Int64Value(int64(sum.FileCount)), digestMap(sum.Files)
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
	ctx, cancel, timer := startOp(ctx, m.Timeouts, opRead, snapshotTimeouts[opRead].def, &resp.Diagnostics)
	defer cancel()
	defer timer.finish("Reading the snapshot archive", &resp.Diagnostics)
	if m.S3 != nil {
		r.readS3(ctx, m, req, resp)
		return
	}
	if m.Image != nil {
		r.readImage(ctx, m, resp)
		return
	}
	st, err := r.eng.ReadArchive(ctx, m.Path.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the snapshot archive", err.Error())
		return
	}
	if !st.Exists || st.SHA256 != m.SHA256.ValueString() {
		resp.State.RemoveResource(ctx)
	}
}

// Update records a new credentials_wo_version; every other argument
// replaces.
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
	ctx, cancel, timer := startOp(ctx, m.Timeouts, opDelete, snapshotTimeouts[opDelete].def, &resp.Diagnostics)
	defer cancel()
	defer timer.finish("Removing the snapshot archive", &resp.Diagnostics)
	if m.S3 != nil {
		r.deleteS3(ctx, m, req, resp)
		return
	}
	if m.Image != nil {
		r.deleteImage(ctx, m, resp)
		return
	}
	err := r.eng.RemoveArchive(ctx, m.Path.ValueString(), m.SHA256.ValueString())
	if err == nil && !m.InputsSHA256.IsNull() {
		err = r.eng.RemoveSnapshotIndex(m.Path.ValueString())
	}
	switch {
	case errors.Is(err, workspace.ErrArchiveChanged):
		resp.Diagnostics.AddWarning("Snapshot archive left in place", err.Error())
	case err != nil:
		resp.Diagnostics.AddError("Cannot remove the snapshot archive", fmt.Sprintf("%s: %v", m.Path.ValueString(), err))
	}
}
