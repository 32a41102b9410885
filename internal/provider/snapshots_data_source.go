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
	Local        *snapshotLocalModel `tfsdk:"local"`
	Inputs       types.Object        `tfsdk:"inputs"`
	InputsSHA256 types.String        `tfsdk:"inputs_sha256"`
	Snapshots    types.List          `tfsdk:"snapshots"`
}

var foundSnapshotType = map[string]attr.Type{
	"snapshot_id": types.StringType, "path": types.StringType, "sha256": types.StringType, "size": types.Int64Type,
	"inputs_sha256": types.StringType,
}

func (d *snapshotsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_snapshots"
}

func (d *snapshotsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Finds `local` `sandbox_snapshot` archives by `inputs_sha256`, so that a configuration can " +
			"restore a prepared environment (`sandbox_workspace.restore_from`) instead of running its setup again when " +
			"nothing that determines it changed (see the evaluation guide). It only reads: each index " +
			"`<base_path>/<snapshot_id>.inputs.json` is checked (small, well-formed) and each match's archive is hashed " +
			"against the sha256 recorded; an index that fails either is skipped with a warning. Snapshots in S3 are " +
			"not searched.",
		Attributes: map[string]schema.Attribute{
			"inputs": inputsDataSourceAttribute(),
			"inputs_sha256": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "The digest " +
				"looked for (`sandbox_snapshot.x.inputs_sha256`); computed from `inputs` when that is set.",
				Validators: []validator.String{stringvalidator.RegexMatches(sha256Hex, "must be 64 lower-case hex digits")}},
			"snapshots": schema.ListAttribute{Computed: true, ElementType: types.ObjectType{AttrTypes: foundSnapshotType},
				MarkdownDescription: "The matching snapshots, newest first: `{ snapshot_id, path, sha256, size, " +
					"inputs_sha256 }`, where `path` and `sha256` are what `restore_from` takes. Empty when none matches."},
		},
		Blocks: map[string]schema.Block{
			"local": schema.SingleNestedBlock{
				MarkdownDescription: "The host directory the snapshots were taken to (required).",
				Attributes: map[string]schema.Attribute{
					"base_path": schema.StringAttribute{Optional: true, MarkdownDescription: "`sandbox_snapshot`'s " +
						"`local.base_path`: relative to the working directory unless absolute. A missing directory " +
						"holds no snapshot. Required in the block.", Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
				},
				Validators: []validator.Object{objectvalidator.IsRequired(),
					objectvalidator.AlsoRequires(path.MatchRelative().AtName("base_path"))},
			},
		},
	}
}

func (d *snapshotsDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("inputs"), path.MatchRoot("inputs_sha256")),
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
	found, skipped, err := d.eng.FindSnapshots(ctx, m.Local.BasePath.ValueString(), m.InputsSHA256.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Cannot list the snapshots", err.Error())
		return
	}
	if len(skipped) > 0 {
		resp.Diagnostics.AddWarning("Snapshot indexes skipped", strings.Join(skipped, "\n"))
	}
	vals := make([]attr.Value, 0, len(found))
	for _, f := range found {
		vals = append(vals, types.ObjectValueMust(foundSnapshotType, map[string]attr.Value{
			"snapshot_id": types.StringValue(f.SnapshotID), "path": types.StringValue(f.Path),
			"sha256": types.StringValue(f.SHA256), "size": types.Int64Value(f.Size), "inputs_sha256": types.StringValue(f.InputsSHA256),
		}))
	}
	m.Snapshots = types.ListValueMust(types.ObjectType{AttrTypes: foundSnapshotType}, vals)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
