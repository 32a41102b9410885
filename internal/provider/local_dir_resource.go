package provider

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

var (
	_ resource.ResourceWithConfigure   = (*localDirResource)(nil)
	_ resource.ResourceWithImportState = (*localDirResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*localDirResource)(nil)
)

// NewLocalDirResource returns the sandbox_local_dir resource: the Python SDK's
// LocalDir entry, a copy of a host directory.
func NewLocalDirResource() resource.Resource { return &localDirResource{} }

type localDirResource struct {
	eng *workspace.Engine
}

type localDirModel struct {
	entryModel
	Source       types.String `tfsdk:"source"`
	Files        types.Map    `tfsdk:"files"`
	FileModes    types.Map    `tfsdk:"file_permissions"`
	FileCount    types.Int64  `tfsdk:"file_count"`
	TotalBytes   types.Int64  `tfsdk:"total_bytes"`
	SourceSHA256 types.String `tfsdk:"source_sha256"`
}

func (r *localDirResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_local_dir"
}

func (r *localDirResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := entryAttributes("directory")
	attrs["source"] = schema.StringAttribute{
		Required: true,
		MarkdownDescription: "Host directory to copy, the Python SDK's `LocalDir.src`: relative to Terraform's working " +
			"directory, and must lie under it or under a provider `extra_path_grants` entry (else reason `outside_base_dir`). " +
			"A symlink anywhere in the tree is refused with reason `symlink_not_supported`, naming the child; sockets and " +
			"FIFOs are skipped; empty directories are not recreated. Files keep their permission bits.",
	}
	attrs["files"] = schema.MapAttribute{
		Computed:    true,
		ElementType: types.StringType,
		MarkdownDescription: "Map of each copied file's path (relative to the entry, POSIX) to its hex SHA-256. Known at plan " +
			"time from the host tree, so an edited, added or deleted source file shows in the plan. After apply it is read " +
			"back from the workspace, so a file changed, added or deleted there shows too; the next apply re-copies only " +
			"those files and removes files the source does not have.",
	}
	attrs["file_permissions"] = schema.MapAttribute{
		Computed:    true,
		ElementType: types.StringType,
		MarkdownDescription: "Map of the same paths to each file's permission bits as 4-digit octal (`\"0644\"`). Files " +
			"keep their source bits; a mode changed in the workspace shows in the plan and is restored by a chmod, " +
			"without re-copying. Directories inside the copy are created with mode `0755`, as the Python SDK's `mkdir -p`.",
	}
	attrs["manifest_entry"] = manifestEntryAttribute("`{\"type\": \"local_dir\", ..., \"src\": <source>}`")
	attrs["file_count"] = schema.Int64Attribute{
		Computed:            true,
		MarkdownDescription: "Number of regular files copied.",
	}
	attrs["total_bytes"] = schema.Int64Attribute{
		Computed:            true,
		MarkdownDescription: "Sum of the copied files' sizes, in bytes.",
	}
	attrs["source_sha256"] = schema.StringAttribute{
		Computed: true,
		MarkdownDescription: "Digest of the whole tree: the hex SHA-256 of the `sha256sum` lines (`<sha256>  <path>\\n`) of " +
			"every file, sorted by path in byte order — the same as " +
			"`find . -type f -printf '%P\\n' | LC_ALL=C sort | xargs -r -d '\\n' sha256sum | sha256sum` run in the source directory.",
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A copy of a host directory in a workspace: the Python SDK's `LocalDir` entry. Files are hashed at plan " +
			"time, then streamed into the workspace (atomic writes, four at a time as the Python SDK's `local_dir_files`); the " +
			"chgrp and chmod apply to the destination directory itself, as the Python SDK. A host file edited between plan and " +
			"apply fails the apply. Destroy removes the files this resource wrote (recorded in private state), then the " +
			"directories left empty; files written there by others stay, with a warning. " +
			"Import ID: `<workspace_id>/<path>` (then set `source`).",
		Attributes: attrs,
	}
}

func (r *localDirResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.eng = engineFrom(req.ProviderData, &resp.Diagnostics)
}

func (m *localDirModel) setSummary(ctx context.Context, s workspace.TreeSummary) {
	files, _ := types.MapValueFrom(ctx, types.StringType, s.Files)
	m.Files = files
	modes, _ := types.MapValueFrom(ctx, types.StringType, s.Modes)
	m.FileModes = modes
	m.FileCount = types.Int64Value(int64(len(s.Files)))
	m.TotalBytes = types.Int64Value(s.TotalBytes)
	m.SourceSHA256 = types.StringValue(s.SHA256)
}

func (m *localDirModel) summary(ctx context.Context) *workspace.TreeSummary {
	if m.SourceSHA256.IsNull() || m.SourceSHA256.IsUnknown() {
		return nil
	}
	s := &workspace.TreeSummary{SHA256: m.SourceSHA256.ValueString(), TotalBytes: m.TotalBytes.ValueInt64()}
	_ = m.Files.ElementsAs(ctx, &s.Files, false)
	_ = m.FileModes.ElementsAs(ctx, &s.Modes, false)
	return s
}

// deleteCopiedTree is the Delete of a resource that copies a tree into a
// workspace (sandbox_local_dir, sandbox_git_repo): it removes the files the
// resource wrote, listed in private state (for an imported resource, the
// files it held when imported), then the directories left empty; what
// others wrote stays, with a warning.
func deleteCopiedTree(ctx context.Context, eng *workspace.Engine, req resource.DeleteRequest, resp *resource.DeleteResponse,
	workspaceID string, p types.String, files types.Map) {
	rel, err := normalizedPath(p)
	if err != nil {
		addEngineError(&resp.Diagnostics, "Invalid path in state", err)
		return
	}
	var names []string
	written, diags := req.Private.GetKey(ctx, writtenKey)
	resp.Diagnostics.Append(diags...)
	if len(written) > 0 {
		if err := json.Unmarshal(written, &names); err != nil {
			resp.Diagnostics.AddError("Reading the list of written files failed", err.Error())
			return
		}
	} else {
		var held map[string]string
		resp.Diagnostics.Append(files.ElementsAs(ctx, &held, false)...)
		for f := range held {
			names = append(names, f)
		}
		sort.Strings(names)
	}
	warning, err := eng.RemoveLocalDir(ctx, workspaceID, rel, names)
	if err != nil {
		addEngineError(&resp.Diagnostics, "Removing directory "+rel+" failed", err)
		return
	}
	if warning != "" {
		resp.Diagnostics.AddWarning("Directory left in place", warning)
	}
}

// writtenKey is the private state key holding the JSON list of files this
// resource wrote: destroy removes those and nothing else, even though
// `files` (refreshed from the workspace) may list files written by others.
const writtenKey = "written"

type privateSetter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

func recordWritten(ctx context.Context, p privateSetter, files types.Map) diag.Diagnostics {
	var m map[string]string
	diags := files.ElementsAs(ctx, &m, false)
	names := make([]string, 0, len(m))
	for f := range m {
		names = append(names, f)
	}
	sort.Strings(names)
	b, err := json.Marshal(names)
	if err != nil {
		diags.AddError("Recording written files failed", err.Error())
		return diags
	}
	return append(diags, p.SetKey(ctx, writtenKey, b)...)
}

func (r *localDirResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.eng == nil {
		return
	}
	var m localDirModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if checkEntryPath(ctx, r.eng, req, resp, workspace.KindDir); resp.Diagnostics.HasError() {
		return
	}
	if checkFreshCopy(ctx, r.eng, req, resp); resp.Diagnostics.HasError() {
		return
	}
	if err := m.setManifestEntry(); err != nil {
		addEngineError(&resp.Diagnostics, "Cannot render manifest_entry", err)
		return
	}
	if m.Source.IsUnknown() {
		resp.Diagnostics.Append(resp.Plan.Set(ctx, &m)...)
		return
	}
	tree, err := r.eng.ScanLocalDir(ctx, m.WorkspaceID.ValueString(), m.Source.ValueString())
	if err != nil {
		addEngineAttributeError(&resp.Diagnostics, path.Root("source"), "Cannot read source directory", err)
		return
	}
	m.setSummary(ctx, workspace.SummarizeTree(tree))
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &m)...)
}

func (r *localDirResource) sync(ctx context.Context, m *localDirModel) error {
	rel, err := normalizedPath(m.Path)
	if err != nil {
		return err
	}
	meta, err := m.meta()
	if err != nil {
		return err
	}
	tree, abs, err := r.eng.SyncLocalDir(ctx, m.WorkspaceID.ValueString(), rel, m.Source.ValueString(), meta, m.summary(ctx))
	if err != nil {
		return err
	}
	m.setSummary(ctx, tree)
	m.ID = types.StringValue(entryID(m.WorkspaceID.ValueString(), rel))
	m.AbsolutePath = types.StringValue(abs)
	return nil
}

func (r *localDirResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if checkFreshAtApply(ctx, r.eng, req.Plan, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	r.save(ctx, req.Plan, &resp.State, resp.Private, &resp.Diagnostics)
}

// save copies the planned tree and records it, with the list of files
// written in private state (Create and Update do the same sync).
func (r *localDirResource) save(ctx context.Context, plan tfsdk.Plan, state *tfsdk.State, private privateSetter, diags *diag.Diagnostics) {
	var m localDirModel
	diags.Append(plan.Get(ctx, &m)...)
	if diags.HasError() {
		return
	}
	if err := r.sync(ctx, &m); err != nil {
		addEngineError(diags, "Copying "+m.Source.ValueString()+" to "+m.Path.ValueString()+" failed", err)
		return
	}
	diags.Append(recordWritten(ctx, private, m.Files)...)
	diags.Append(state.Set(ctx, &m)...)
}

func (r *localDirResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m localDirModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	rel, err := normalizedPath(m.Path)
	if err != nil {
		addEngineError(&resp.Diagnostics, "Invalid path in state", err)
		return
	}
	st, summary, err := r.eng.ReadLocalDir(ctx, m.WorkspaceID.ValueString(), rel)
	if workspaceGone(err) || (err == nil && (!st.Exists || !st.Info.IsDir)) {
		resp.State.RemoveResource(ctx)
		return
	}
	if workspaceStopped(err) {
		return // nothing can be read in a stopped container: state stays as it was
	}
	if err != nil {
		addEngineError(&resp.Diagnostics, "Reading directory "+rel+" failed", err)
		return
	}
	m.observeMeta(st)
	if m.Ephemeral.IsNull() {
		m.Ephemeral = types.BoolValue(false)
	}
	m.setSummary(ctx, summary)
	_ = m.setManifestEntry() // inputs come from state; an error leaves it unknown
	if w, err := r.eng.Open(ctx, m.WorkspaceID.ValueString()); err == nil {
		m.AbsolutePath = types.StringValue(w.AbsPath(rel))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *localDirResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.save(ctx, req.Plan, &resp.State, resp.Private, &resp.Diagnostics)
}

func (r *localDirResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m localDirModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	deleteCopiedTree(ctx, r.eng, req, resp, m.WorkspaceID.ValueString(), m.Path, m.Files)
}

func (r *localDirResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importEntry(ctx, req, resp)
}
