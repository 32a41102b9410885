package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
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
	_ datasource.DataSourceWithConfigure        = (*changesDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*changesDataSource)(nil)
)

// NewChangesDataSource returns the sandbox_changes data source: what
// differs between a workspace's tree and a snapshot or its declared
// entries.
func NewChangesDataSource() datasource.DataSource { return &changesDataSource{} }

type changesDataSource struct {
	eng *workspace.Engine
}

type changesModel struct {
	WorkspaceID      types.String `tfsdk:"workspace_id"`
	SnapshotPath     types.String `tfsdk:"snapshot_path"`
	SnapshotSHA256   types.String `tfsdk:"snapshot_sha256"`
	Entries          types.Map    `tfsdk:"entries"`
	Exclude          types.List   `tfsdk:"exclude"`
	MaxBytes         types.Int64  `tfsdk:"max_bytes"`
	MaxFiles         types.Int64  `tfsdk:"max_files"`
	MaxDiffFileBytes types.Int64  `tfsdk:"max_diff_file_bytes"`
	MaxDiffBytes     types.Int64  `tfsdk:"max_diff_bytes"`
	Timeout          types.Int64  `tfsdk:"timeout"`
	Added            types.List   `tfsdk:"added"`
	Modified         types.List   `tfsdk:"modified"`
	Removed          types.List   `tfsdk:"removed"`
	Diff             types.String `tfsdk:"diff"`
	DiffTruncated    types.Bool   `tfsdk:"diff_truncated"`
	Summary          types.String `tfsdk:"summary"`
}

const (
	defaultDiffFileBytes = 64 << 10
	defaultDiffBytes     = 1 << 20
	defaultChangesSecs   = 600
)

var changedFileType = map[string]attr.Type{
	"path": types.StringType, "type": types.StringType, "size": types.Int64Type, "sha256": types.StringType,
	"old_size": types.Int64Type, "old_sha256": types.StringType,
}

func (d *changesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_changes"
}

func (d *changesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	list := func(desc string) schema.ListAttribute {
		return schema.ListAttribute{Computed: true, ElementType: types.ObjectType{AttrTypes: changedFileType},
			MarkdownDescription: desc + " Sorted by path; each `{ path, type, size, sha256, old_size, old_sha256 }` " +
				"(`type` is `file` or `symlink`; a symlink's `size`/`sha256` are its target text's)."}
	}
	limit := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Optional: true, MarkdownDescription: desc,
			Validators: []validator.Int64{int64validator.AtLeast(1)}}
	}
	maxBytes, maxFiles := archiveLimitAttributes("read from each tree (regular files' sizes)",
		"files, directories and links read from each tree")
	resp.Schema = schema.Schema{
		MarkdownDescription: "What changed in a workspace (what an agent did): its current tree (read as `sandbox_snapshot` " +
			"would take it, without ephemeral entries and `exclude` paths) compared with a `sandbox_snapshot` archive on " +
			"the host (`snapshot_path`) or with the digests of its declared entries (`entries`). Read at plan time once " +
			"the workspace exists, so an `output` of `summary` or `diff` shows the changes in `terraform plan`. It only " +
			"reads: write `diff` to a file for CI artefacts with `terraform output -raw`, or a `local_file` resource. The " +
			"tree comes from the sandbox and is untrusted: it is bounded by `max_bytes`, `max_files` and `timeout`, and " +
			"names are shown with control characters escaped (`\\xNN`).",
		Attributes: map[string]schema.Attribute{
			"workspace_id": schema.StringAttribute{Required: true, MarkdownDescription: "The `id` of the workspace.",
				Validators: []validator.String{workspaceIDValidator{}}},
			"snapshot_path": schema.StringAttribute{Optional: true, MarkdownDescription: "Host path of a `local` " +
				"`sandbox_snapshot` archive (`sandbox_snapshot.x.path`), relative to the working directory unless absolute. " +
				"Set exactly one of `snapshot_path` and `entries`.", Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
			"snapshot_sha256": schema.StringAttribute{Optional: true, MarkdownDescription: "SHA-256 (hex) the archive must " +
				"have (`sandbox_snapshot.x.sha256`); another one fails the read.",
				Validators: []validator.String{stringvalidator.RegexMatches(sha256Hex, "must be 64 lower-case hex digits"),
					stringvalidator.AlsoRequires(path.MatchRoot("snapshot_path"))}},
			"entries": schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Baseline " +
				"as workspace-relative path → SHA-256 (hex), such as `sandbox_local_dir.x.files` or a `merge` of them with " +
				"`{ (sandbox_file.x.path) = sandbox_file.x.content_sha256 }`. Without old content no diff is made for " +
				"modified or removed files; every path not listed is added.",
				Validators: []validator.Map{mapvalidator.KeysAre(entryPathValidator{})}},
			"exclude": schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Workspace-" +
				"relative paths left out of the current tree, with everything below them.",
				Validators: []validator.List{listvalidator.ValueStringsAre(entryPathValidator{})}},
			"max_bytes": maxBytes,
			"max_files": maxFiles,
			"max_diff_file_bytes": limit("Text files larger than this (bytes) on either side are listed but not diffed. " +
				"Default 65536."),
			"max_diff_bytes": limit("At most this many bytes of `diff`; past it the diff ends with a line saying so and " +
				"`diff_truncated` is true. Default 1048576."),
			"timeout": limit("Seconds the read may take (both trees). Default 600."),
			"added":   list("Paths in the workspace that the baseline does not have."),
			"modified": list("Paths whose content (or type) differs; `old_size` (-1 when the baseline has only a digest) " +
				"and `old_sha256` are the baseline's."),
			"removed": list("Paths of the baseline that the workspace no longer has; `size` and `sha256` are the " +
				"baseline's (`size` -1 when it has only a digest)."),
			"diff": schema.StringAttribute{Computed: true, MarkdownDescription: "Unified diff (`a/<path>`, `b/<path>`, " +
				"`/dev/null` for added and removed files) of the text files (valid UTF-8 without NUL) among them, in path order. " +
				"Control characters other than newline and tab are shown as `\\xNN`, bidirectional and zero-width ones as " +
				"`\\uNNNN`, so that a file cannot drive the terminal that shows the plan."},
			"diff_truncated": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether `diff` was cut at `max_diff_bytes`."},
			"summary": schema.StringAttribute{Computed: true, MarkdownDescription: "One line per change, `A`/`M`/`D`, the " +
				"path and the new (or removed) sha256, for an `output` a reviewer reads in the plan."},
		},
	}
}

func (d *changesDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("snapshot_path"), path.MatchRoot("entries")),
	}
}

func (d *changesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.eng = engineFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *changesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m changesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	creq := workspace.ChangesRequest{SnapshotPath: m.SnapshotPath.ValueString(), SnapshotSHA256: m.SnapshotSHA256.ValueString(),
		Limits:           engineOutputLimits(d.eng, m.MaxBytes, m.MaxFiles),
		MaxDiffFileBytes: int64OrDefault(m.MaxDiffFileBytes, defaultDiffFileBytes),
		MaxDiffBytes:     int64OrDefault(m.MaxDiffBytes, defaultDiffBytes)}
	if !m.Entries.IsNull() {
		resp.Diagnostics.Append(m.Entries.ElementsAs(ctx, &creq.Entries, false)...)
		if creq.Entries == nil {
			creq.Entries = map[string]string{}
		}
	}
	resp.Diagnostics.Append(m.Exclude.ElementsAs(ctx, &creq.Exclude, false)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(int64OrDefault(m.Timeout, defaultChangesSecs))*time.Second)
	defer cancel()
	ws, err := d.eng.Open(ctx, m.WorkspaceID.ValueString())
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("workspace_id"), "Workspace not found", err.Error())
		return
	}
	c, err := ws.Changes(ctx, creq)
	if err != nil {
		resp.Diagnostics.AddError("Cannot compare the workspace", err.Error())
		return
	}
	m.Added, m.Modified, m.Removed = changedList(c.Added), changedList(c.Modified), changedList(c.Removed)
	m.Diff, m.DiffTruncated = types.StringValue(c.Diff), types.BoolValue(c.DiffTruncated)
	m.Summary = types.StringValue(changesSummary(c))
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func int64OrDefault(v types.Int64, def int64) int64 {
	if v.IsNull() || v.IsUnknown() {
		return def
	}
	return v.ValueInt64()
}

func changedList(files []workspace.ChangedFile) types.List {
	t := types.ObjectType{AttrTypes: changedFileType}
	vals := make([]attr.Value, 0, len(files))
	for _, f := range files {
		old := types.StringNull()
		if f.OldSHA256 != "" {
			old = types.StringValue(f.OldSHA256)
		}
		oldSize := types.Int64Null()
		if f.OldSHA256 != "" {
			oldSize = types.Int64Value(f.OldSize)
		}
		vals = append(vals, types.ObjectValueMust(changedFileType, map[string]attr.Value{
			"path": types.StringValue(f.Path), "type": types.StringValue(f.Type), "size": types.Int64Value(f.Size),
			"sha256": types.StringValue(f.SHA256), "old_size": oldSize, "old_sha256": old,
		}))
	}
	return types.ListValueMust(t, vals)
}

func changesSummary(c workspace.Changes) string {
	var s string
	line := func(tag string, fs []workspace.ChangedFile) {
		for _, f := range fs {
			s += tag + " " + f.Path + " " + f.SHA256 + "\n"
		}
	}
	line("A", c.Added)
	line("M", c.Modified)
	line("D", c.Removed)
	return s
}
