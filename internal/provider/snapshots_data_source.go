package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

var (
	_ datasource.DataSourceWithConfigure        = (*snapshotsDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*snapshotsDataSource)(nil)
)

// NewSnapshotsDataSource returns the sandbox_snapshots data source: the
// snapshots in a host directory taken with given inputs.
func NewSnapshotsDataSource() datasource.DataSource { return &snapshotsDataSource{} }

type snapshotsDataSource struct {
	eng *workspace.Engine
}

type snapshotsModel struct {
	Local        *snapshotLocalModel  `tfsdk:"local"`
	Image        *snapshotsImageModel `tfsdk:"image"`
	S3           *snapshotsS3Model    `tfsdk:"s3"`
	Inputs       types.Object         `tfsdk:"inputs"`
	InputsSHA256 types.String         `tfsdk:"inputs_sha256"`
	Snapshots    types.List           `tfsdk:"snapshots"`
}

// snapshotsImageModel is the image block: where labelled images are looked for.
type snapshotsImageModel struct {
	Repository types.String `tfsdk:"repository"`
}

var foundSnapshotType = map[string]attr.Type{
	"snapshot_id": types.StringType, "path": types.StringType, "sha256": types.StringType, "size": types.Int64Type,
	"inputs_sha256": types.StringType, "image_id": types.StringType, "image": types.StringType, "url": types.StringType,
}

func (d *snapshotsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_snapshots"
}

func (d *snapshotsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Finds `sandbox_snapshot`s taken with `inputs` by `inputs_sha256` — `local` or `s3` " +
			"archives, or `image` snapshots on the provider's Docker daemon — so that a configuration can start from a " +
			"prepared environment (`restore_from`, or `docker.image`) instead of running its setup again when nothing " +
			"that determines it changed (see the evaluation guide). It only reads: each index " +
			"`<snapshot_id>.inputs.json` beside an archive is checked (small, well-formed, naming itself) and so is its " +
			"archive (a local one hashed against the sha256 recorded, an object's size compared), else skipped with a " +
			"warning; images are found by their `sandbox.snapshot_inputs_sha256` label (at most 100, newest first).",
		Attributes: map[string]schema.Attribute{
			"inputs": inputsDataSourceAttribute(),
			"inputs_sha256": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "The digest " +
				"looked for (`sandbox_snapshot.x.inputs_sha256`); computed from `inputs` when that is set.",
				Validators: []validator.String{stringvalidator.RegexMatches(sha256Hex, "must be 64 lower-case hex digits")}},
			"snapshots": schema.ListAttribute{Computed: true, ElementType: types.ObjectType{AttrTypes: foundSnapshotType},
				MarkdownDescription: "The matching snapshots, newest first: `{ snapshot_id, path, url, sha256, size, " +
					"inputs_sha256, image_id, image }`. Archives set `sha256` and `path` (`local`) or `url` (`s3`), what " +
					"`restore_from` takes; images " +
					"set `image_id` (for `docker.image`) and `image` (a `repository:tag` it holds now, null when none: a " +
					"tag can move); `size` is bytes (the daemon's image size). Empty when none matches."},
		},
		Blocks: map[string]schema.Block{
			"local": schema.SingleNestedBlock{
				MarkdownDescription: "Look in the host directory the archives were taken to. Exactly one of `local`, `s3` and `image`.",
				Attributes: map[string]schema.Attribute{
					"base_path": schema.StringAttribute{Optional: true, MarkdownDescription: "`sandbox_snapshot`'s " +
						"`local.base_path`: relative to the working directory unless absolute. A missing directory " +
						"holds no snapshot. Required in the block.", Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
				},
				Validators: []validator.Object{objectvalidator.AlsoRequires(path.MatchRelative().AtName("base_path"))},
			},
			"s3": snapshotsS3Block(),
			"image": schema.SingleNestedBlock{
				MarkdownDescription: "Look for `image` snapshots on the provider's Docker daemon (`docker_host`).",
				Attributes: map[string]schema.Attribute{
					"repository": schema.StringAttribute{Optional: true, MarkdownDescription: "Only images written to " +
						"this repository (`sandbox_snapshot`'s `image.repository`), still found when a later image took " +
						"their tag. Default: any.",
						Validators: []validator.String{stringvalidator.RegexMatches(imageRepositoryPattern,
							"must be a Docker repository name (lower case path components, optionally behind a registry host)")}},
				},
			},
		},
	}
}

func (d *snapshotsDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("inputs"), path.MatchRoot("inputs_sha256")),
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("local"), path.MatchRoot("image"), path.MatchRoot("s3")),
	}
}

func (d *snapshotsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.eng = engineFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *snapshotsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m snapshotsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !m.Inputs.IsNull() {
		sum, ok := inputsSHA256(ctx, m.Inputs, &resp.Diagnostics)
		if !ok {
			resp.Diagnostics.AddAttributeError(path.Root("inputs"), "Inputs not known", "inputs must be known to look snapshots up.")
			return
		}
		m.InputsSHA256 = types.StringValue(sum)
	}
	var vals []attr.Value
	switch {
	case m.Image != nil:
		vals = d.findImages(ctx, m, &resp.Diagnostics)
	case m.S3 != nil:
		vals = d.findS3(ctx, m, &resp.Diagnostics)
	default:
		vals = d.findLocal(ctx, m, &resp.Diagnostics)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	m.Snapshots = types.ListValueMust(types.ObjectType{AttrTypes: foundSnapshotType}, vals)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// findLocal lists the matching archives of the local block's directory.
func (d *snapshotsDataSource) findLocal(ctx context.Context, m snapshotsModel, diags *diag.Diagnostics) []attr.Value {
	found, skipped, err := d.eng.FindSnapshots(ctx, m.Local.BasePath.ValueString(), m.InputsSHA256.ValueString())
	if err != nil {
		diags.AddError("Cannot list the snapshots", err.Error())
		return nil
	}
	if len(skipped) > 0 {
		diags.AddWarning("Snapshot indexes skipped", strings.Join(skipped, "\n"))
	}
	vals := make([]attr.Value, 0, len(found))
	for _, f := range found {
		vals = append(vals, foundArchive(f.SnapshotIndex, types.StringValue(f.Path), types.StringNull()))
	}
	return vals
}

// findImages lists the matching snapshot images on the Docker daemon.
func (d *snapshotsDataSource) findImages(ctx context.Context, m snapshotsModel, diags *diag.Diagnostics) []attr.Value {
	found, err := d.eng.FindSnapshotImages(ctx, m.InputsSHA256.ValueString(), m.Image.Repository.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("image"), "Cannot list the snapshot images", err.Error())
		return nil
	}
	vals := make([]attr.Value, 0, len(found))
	for _, f := range found {
		ref := types.StringNull()
		if len(f.RepoTags) > 0 {
			ref = types.StringValue(f.RepoTags[0])
		}
		id := types.StringNull()
		if f.SnapshotID != "" {
			id = types.StringValue(f.SnapshotID)
		}
		vals = append(vals, types.ObjectValueMust(foundSnapshotType, map[string]attr.Value{
			"snapshot_id": id, "path": types.StringNull(), "sha256": types.StringNull(), "size": types.Int64Value(f.Size),
			"inputs_sha256": m.InputsSHA256, "image_id": types.StringValue(f.ID), "image": ref, "url": types.StringNull(),
		}))
	}
	return vals
}
