package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// The attributes and steps shared by the two resources that copy a tree
// into a workspace, sandbox_local_dir and sandbox_git_repo.

// treeKind marks an entry kind that copies a tree: a new copy is refused
// where files already stand (at plan time and again at apply).
type treeKind interface{ copiesTree() }

// treeModel holds the computed attributes of a copied tree.
type treeModel struct {
	Files      types.Map    `tfsdk:"files"`
	FileModes  types.Map    `tfsdk:"file_permissions"`
	FileCount  types.Int64  `tfsdk:"file_count"`
	TotalBytes types.Int64  `tfsdk:"total_bytes"`
	TreeSHA256 types.String `tfsdk:"tree_sha256"`
}

// treeAttributes adds the computed tree attributes to attrs; known says
// when `files` is known at plan time, modes how file modes are chosen.
func treeAttributes(attrs map[string]schema.Attribute, known, modes string) {
	attrs["files"] = schema.MapAttribute{
		Computed: true, ElementType: types.StringType,
		MarkdownDescription: "Copied file path (relative to the entry) to its hex SHA-256. " + known +
			" Read back from the workspace, so drift there shows in the plan and the next apply repairs it.",
	}
	attrs["file_permissions"] = schema.MapAttribute{
		Computed: true, ElementType: types.StringType,
		MarkdownDescription: "The same paths to each file's mode as 4-digit octal: " + modes +
			" A mode changed in the workspace is restored by a chmod. Directories in the copy are `0755`.",
	}
	attrs["file_count"] = schema.Int64Attribute{Computed: true, MarkdownDescription: "Number of regular files copied."}
	attrs["total_bytes"] = schema.Int64Attribute{Computed: true, MarkdownDescription: "Sum of the copied files' sizes, in bytes."}
	attrs["tree_sha256"] = schema.StringAttribute{
		Computed: true,
		MarkdownDescription: "Digest of the whole tree: hex SHA-256 of the `sha256sum` lines of every file, sorted by path " +
			"(`find . -type f -printf '%P\\n' | LC_ALL=C sort | xargs -r -d '\\n' sha256sum | sha256sum` in the copied directory).",
	}
}

func (t *treeModel) setSummary(ctx context.Context, s workspace.TreeSummary) {
	t.Files, _ = types.MapValueFrom(ctx, types.StringType, s.Files)
	t.FileModes, _ = types.MapValueFrom(ctx, types.StringType, s.Modes)
	t.FileCount = types.Int64Value(int64(len(s.Files)))
	t.TotalBytes = types.Int64Value(s.TotalBytes)
	t.TreeSHA256 = types.StringValue(s.SHA256)
}

func (t *treeModel) unknownSummary() {
	t.Files = types.MapUnknown(types.StringType)
	t.FileModes = types.MapUnknown(types.StringType)
	t.FileCount = types.Int64Unknown()
	t.TotalBytes = types.Int64Unknown()
	t.TreeSHA256 = types.StringUnknown()
}

// summary is the planned tree, or nil when it is not known.
func (t *treeModel) summary(ctx context.Context) *workspace.TreeSummary {
	if t.TreeSHA256.IsNull() || t.TreeSHA256.IsUnknown() {
		return nil
	}
	s := &workspace.TreeSummary{SHA256: t.TreeSHA256.ValueString(), TotalBytes: t.TotalBytes.ValueInt64()}
	_ = t.Files.ElementsAs(ctx, &s.Files, false)
	_ = t.FileModes.ElementsAs(ctx, &s.Modes, false)
	return s
}

// observeTree reads the copied directory rel into t.
func (t *treeModel) observeTree(ctx context.Context, ws *workspace.Workspace, rel string) (workspace.EntryState, error) {
	st, err := ws.ReadTree(ctx, rel)
	if err == nil && st.Exists && st.Info.IsDir {
		t.setSummary(ctx, st.Tree)
	}
	return st.EntryState, err
}

// removeTree removes the files the resource wrote, listed in private state
// (for an imported resource, the files it held when imported), then the
// directories left empty; what others wrote stays, and the warning says so.
func (t *treeModel) removeTree(ctx context.Context, ws *workspace.Workspace, rel string, private privateGetter) (string, error) {
	var names []string
	written, diags := private.GetKey(ctx, writtenKey)
	if diags.HasError() {
		return "", fmt.Errorf("reading the list of written files: %s", diags[0].Detail())
	}
	if len(written) > 0 {
		if err := json.Unmarshal(written, &names); err != nil {
			return "", fmt.Errorf("reading the list of written files: %w", err)
		}
	} else {
		var held map[string]string
		_ = t.Files.ElementsAs(ctx, &held, false)
		for f := range held {
			names = append(names, f)
		}
		sort.Strings(names)
	}
	return ws.RemoveTree(ctx, rel, names)
}

// writtenKey is the private state key holding the JSON list of files this
// resource wrote: destroy removes those and nothing else, even though
// `files` (refreshed from the workspace) may list files written by others.
const writtenKey = "written"

// recordWritten records the files of t as written by this resource.
func (t *treeModel) recordWritten(ctx context.Context, p privateSetter) diag.Diagnostics {
	return recordWritten(ctx, p, t.Files)
}

// recordWritten records the keys of files (path -> digest) in private
// state as the files this resource wrote.
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

// renameTreeDigest is the state upgrader of a copied-tree resource whose
// version 0 named the tree digest old (sandbox_local_dir's
// `source_sha256`) and may lack total_bytes: the value moves to
// `tree_sha256`; total_bytes stays null until the next read.
func renameTreeDigest(typ, old string) resource.StateUpgrader {
	return resource.StateUpgrader{StateUpgrader: func(_ context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
		var st map[string]any
		if err := json.Unmarshal(req.RawState.JSON, &st); err != nil {
			resp.Diagnostics.AddError("Upgrading "+typ+" state failed", err.Error())
			return
		}
		if v, ok := st[old]; ok {
			st["tree_sha256"] = v
			delete(st, old)
		}
		if _, ok := st["total_bytes"]; !ok {
			st["total_bytes"] = nil
		}
		data, err := json.Marshal(st)
		if err != nil {
			resp.Diagnostics.AddError("Upgrading "+typ+" state failed", err.Error())
			return
		}
		resp.DynamicValue = &tfprotov6.DynamicValue{JSON: data}
	}}
}
