package provider

import (
	"context"
	"encoding/base64"
	"errors"
	"unicode/utf8"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// DefaultFileDataMaxSize is data.sandbox_file's default max_size: 1 MiB.
const DefaultFileDataMaxSize = 1 << 20

var _ datasource.DataSourceWithConfigure = (*fileDataSource)(nil)

// NewFileDataSource returns data.sandbox_file: one file read out of a
// workspace.
func NewFileDataSource() datasource.DataSource { return &fileDataSource{} }

type fileDataSource struct {
	eng *workspace.Engine
}

type fileDataModel struct {
	WorkspaceID   types.String `tfsdk:"workspace_id"`
	Path          types.String `tfsdk:"path"`
	MaxSize       types.Int64  `tfsdk:"max_size"`
	Content       types.String `tfsdk:"content"`
	ContentBase64 types.String `tfsdk:"content_base64"`
	SHA256        types.String `tfsdk:"sha256"`
	Size          types.Int64  `tfsdk:"size"`
	Exists        types.Bool   `tfsdk:"exists"`
}

func (d *fileDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_file"
}

func (d *fileDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads one regular file out of a workspace, such as a result a command wrote. No symlink is " +
			"followed anywhere along the path; a missing file gives `exists = false`.",
		Attributes: map[string]schema.Attribute{
			"workspace_id": schema.StringAttribute{Required: true, MarkdownDescription: "The `id` of the workspace.",
				Validators: []validator.String{workspaceIDValidator{}}},
			"path": schema.StringAttribute{Required: true, MarkdownDescription: entryPathDescription("file"),
				Validators: []validator.String{entryPathValidator{}}},
			"max_size": schema.Int64Attribute{Optional: true, MarkdownDescription: "Largest file read, in bytes; a " +
				"larger file fails the read. Default 1048576 (1 MiB), at most 16 MiB.",
				Validators: []validator.Int64{int64validator.Between(0, 16<<20)}},
			"content": schema.StringAttribute{Computed: true, Sensitive: true, MarkdownDescription: "The content when it is valid " +
				"UTF-8, else null. Sensitive, since a workspace file may hold a secret (a `content_wo` file): an output " +
				"of it needs `sensitive = true`, or `nonsensitive()` when it is known to be safe."},
			"content_base64": schema.StringAttribute{Computed: true, Sensitive: true, MarkdownDescription: "The content, " +
				"base64-encoded. Sensitive, as `content`."},
			"sha256": schema.StringAttribute{Computed: true, MarkdownDescription: "SHA-256 (hex) of the content."},
			"size":   schema.Int64Attribute{Computed: true, MarkdownDescription: "Size of the file in bytes."},
			"exists": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether a file is at `path`."},
		},
	}
}

func (d *fileDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.eng = engineFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *fileDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m fileDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	limit := int64(DefaultFileDataMaxSize)
	if !m.MaxSize.IsNull() {
		limit = m.MaxSize.ValueInt64()
	}
	ws, err := d.eng.Open(ctx, m.WorkspaceID.ValueString())
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("workspace_id"), "Workspace not found", err.Error())
		return
	}
	fc, err := ws.ReadFile(ctx, m.Path.ValueString(), limit)
	if err != nil {
		summary := "Cannot read the file"
		if errors.Is(err, workspace.ErrTooLarge) {
			summary = "File larger than max_size"
		}
		resp.Diagnostics.AddAttributeError(path.Root("path"), summary, err.Error())
		return
	}
	m.Exists, m.Size = types.BoolValue(fc.Exists), types.Int64Value(fc.Size)
	m.Content, m.ContentBase64, m.SHA256 = types.StringNull(), types.StringNull(), types.StringNull()
	if fc.Exists {
		m.ContentBase64, m.SHA256 = types.StringValue(base64.StdEncoding.EncodeToString(fc.Content)), types.StringValue(fc.SHA256)
		if utf8.Valid(fc.Content) {
			m.Content = types.StringValue(string(fc.Content))
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
