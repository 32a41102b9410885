package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// NewLocalDirResource returns the sandbox_local_dir resource: the Python SDK's
// LocalDir entry, a copy of a host directory.
func NewLocalDirResource() resource.Resource {
	return &entryResource[localDirModel, *localDirModel]{k: localDirEntry{}}
}

type localDirModel struct {
	entryModel
	treeModel
	Source                types.String   `tfsdk:"source"`
	KeepSourcePermissions types.Bool     `tfsdk:"keep_source_permissions"`
	Timeouts              timeouts.Value `tfsdk:"timeouts"`
}

// copyMeta is the metadata of the copy: the entry's, with the files'
// mode (the Python SDK's 0644 unless keep_source_permissions).
func (m *localDirModel) copyMeta(meta workspace.Meta) workspace.Meta {
	meta.FilePerm = workspace.SDKCopiedFilePerm
	if m.KeepSourcePermissions.ValueBool() {
		meta.FilePerm = 0
	}
	return meta
}

// localDirEntry is sandbox_local_dir: the host tree is hashed at plan time
// and synchronised into the workspace at apply.
type localDirEntry struct{}

func (localDirEntry) typeName() string          { return "local_dir" }
func (localDirEntry) makes() workspace.PathType { return workspace.PathDir }
func (localDirEntry) copiesTree()               {}

// upgraders: version 0 named the tree digest `source_sha256`; versions 0
// and 1 recorded `files` and `file_permissions` always.
func (localDirEntry) upgraders() map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{
		0: upgradeTree("sandbox_local_dir", "source_sha256"),
		1: upgradeTree("sandbox_local_dir", ""),
	}
}

func (localDirEntry) schema() schema.Schema {
	attrs := entryAttributes("directory")
	attrs["source"] = schema.StringAttribute{
		Required: true,
		MarkdownDescription: "Host directory to copy (the Python SDK's `LocalDir.src`), relative to Terraform's working " +
			"directory and under it or a provider `extra_path_grants` entry (else `outside_base_dir`). A symlink in the tree " +
			"fails with `symlink_not_supported`; sockets, FIFOs and empty directories are skipped.",
	}
	attrs["keep_source_permissions"] = schema.BoolAttribute{
		Optional: true, Computed: true, Default: booldefault.StaticBool(false),
		MarkdownDescription: "`true` gives every copied file its source permission bits; `false` (default) writes them " +
			"`0644`, as the Python SDK does.",
	}
	treeAttributes(attrs, "Known at plan time from the host tree: the apply re-copies only changed files and removes "+
		"files the source does not have.", "`0644`, or the source's bits with `keep_source_permissions`.")
	attrs["manifest_entry"] = manifestEntryAttribute("`{\"type\": \"local_dir\", ..., \"src\": <source>}`; null with " +
		"`keep_source_permissions = true`, whose modes the Python SDK would not keep")
	return schema.Schema{
		Version: 2,
		MarkdownDescription: "A copy of a host directory in a workspace: the Python SDK's `LocalDir` entry. Files are written " +
			"`0644` as the Python SDK writes them (`keep_source_permissions` keeps their source bits) and directories `0755`; " +
			"sockets and FIFOs are skipped and empty directories are not recreated. Files are hashed at plan " +
			"time, then streamed into the workspace (atomic writes, four at a time as the Python SDK's `local_dir_files`); the " +
			"chmod applies to the destination directory itself, as the Python SDK; `owner` and `group` to it and every file " +
			"and directory of the copy (the Python SDK chgrps the destination only). A host file edited between plan and " +
			"apply fails the apply. Destroy removes the files this resource wrote (recorded in private state), then the " +
			"directories left empty; files written there by others stay, with a warning. " +
			"Import ID: `<workspace_id>/<path>` (then set `source`, and `keep_source_permissions` if the copy keeps them). " +
			"`timeouts`: create and update 20 minutes, read and delete 10; a copy cut short leaves no partial file.",
		Attributes: attrs,
		Blocks:     map[string]schema.Block{"timeouts": timeoutsBlock(context.Background(), localDirEntry{}.timeoutDefaults())},
	}
}

func (localDirEntry) render(m, _ *localDirModel) error { return m.setManifestEntry() }

func (localDirEntry) plan(ctx context.Context, eng *workspace.Engine, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, m, _ *localDirModel) {
	if m.Source.IsUnknown() || m.KeepSourcePermissions.IsUnknown() {
		return
	}
	tree, err := eng.ScanLocalDir(ctx, m.WorkspaceID.ValueString(), m.Source.ValueString())
	var prior localDirModel
	if err != nil && keepGoneSource(ctx, req, m.Source, &prior, err, &resp.Diagnostics) {
		m.keepTree(&prior.treeModel)
		return
	}
	if err != nil {
		addEngineAttributeError(&resp.Diagnostics, path.Root("source"), "Cannot read source directory", err)
		return
	}
	s := workspace.SummarizeCopy(tree, m.copyMeta(workspace.Meta{}))
	m.setSummary(ctx, s)
	m.planChanges(ctx, req, s)
	resp.Diagnostics.Append(setTree(ctx, resp.Private, plannedKey, &s)...)
}

func (localDirEntry) apply(ctx context.Context, a entryApply[*localDirModel], diags *diag.Diagnostics) {
	m := a.m
	fail := func(err error) { addEngineError(diags, "Copying "+m.Source.ValueString()+" to "+a.rel+" failed", err) }
	planned, err := m.plannedTree(ctx, a)
	if err != nil {
		fail(err)
		return
	}
	tree, err := a.ws.SyncLocalDir(ctx, a.rel, m.Source.ValueString(), m.copyMeta(a.meta), planned)
	if err != nil {
		fail(err)
		return
	}
	diags.Append(m.recordApplied(ctx, a.private, tree)...)
}

// plannedTree is the tree the plan showed, with its files: from the plan
// (record_files), from the plan's private state (an update), else (a
// create, which gets no private state from its plan) the host tree hashed
// again, which must still have the planned digest. Nil when the plan did
// not know the tree: the engine hashes it.
func (m *localDirModel) plannedTree(ctx context.Context, a entryApply[*localDirModel]) (*workspace.TreeSummary, error) {
	if m.TreeSHA256.IsUnknown() || m.TreeSHA256.IsNull() {
		return nil, nil
	}
	want := m.TreeSHA256.ValueString()
	if s := m.summary(ctx); s != nil {
		return s, nil
	}
	if s := getTree(ctx, a.private, plannedKey); s != nil && s.SHA256 == want {
		return s, nil
	}
	tree, err := a.eng.ScanLocalDir(ctx, m.WorkspaceID.ValueString(), m.Source.ValueString())
	if err != nil {
		return nil, err
	}
	s := workspace.SummarizeCopy(tree, m.copyMeta(workspace.Meta{}))
	if s.SHA256 != want {
		return nil, fmt.Errorf("host source directory %s changed between plan and apply (tree_sha256 %s planned, %s now): %w",
			m.Source.ValueString(), want, s.SHA256, workspace.ErrSourceChanged)
	}
	return &s, nil
}

func (localDirEntry) observe(ctx context.Context, ws *workspace.Workspace, m *localDirModel, rel string) (workspace.EntryState, error) {
	if m.KeepSourcePermissions.IsNull() { // imported, or written before the attribute existed
		m.KeepSourcePermissions = types.BoolValue(false)
	}
	return m.observeTree(ctx, ws, rel)
}

func (localDirEntry) remove(ctx context.Context, ws *workspace.Workspace, m *localDirModel, rel string, private privateGetter) (string, error) {
	return m.removeTree(ctx, ws, rel, private)
}
