package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// The attributes and steps shared by the two resources that copy a tree
// into a workspace, sandbox_local_dir and sandbox_git_repo.

// treeCopier marks an entry type that copies a tree: a new copy is refused
// where files already stand (at plan time and again at apply).
type treeCopier interface{ copiesTree() }

// treeModel holds the computed attributes of a copied tree.
type treeModel struct {
	RecordFiles types.Bool   `tfsdk:"record_files"`
	Files       types.Map    `tfsdk:"files"`
	FileModes   types.Map    `tfsdk:"file_permissions"`
	FileCount   types.Int64  `tfsdk:"file_count"`
	TotalBytes  types.Int64  `tfsdk:"total_bytes"`
	TreeSHA256  types.String `tfsdk:"tree_sha256"`
	Changes     types.List   `tfsdk:"changes"`

	// seen is the tree the last observeTree read in the workspace, kept
	// in private state (observedKey) by Read.
	seen *workspace.TreeSummary
}

// treeAttributes adds the computed tree attributes to attrs; known says
// when the tree is known at plan time, modes how file modes are chosen.
func treeAttributes(attrs map[string]schema.Attribute, known, modes string) {
	attrs["record_files"] = schema.BoolAttribute{
		Optional: true,
		MarkdownDescription: "`true` also records `files` and `file_permissions`: one plan line per file. `false` or null (default) " +
			"leaves them null; the per-file digests are then kept in private state, so drift is still detected and `changes` names it.",
	}
	attrs["files"] = schema.MapAttribute{
		Computed: true, ElementType: types.StringType,
		MarkdownDescription: "With `record_files`, copied file path (relative to the entry) to its hex SHA-256, else null. " + known +
			" Read back from the workspace, so drift there shows in the plan and the next apply repairs it.",
	}
	attrs["file_permissions"] = schema.MapAttribute{
		Computed: true, ElementType: types.StringType,
		MarkdownDescription: "With `record_files`, the same paths to each file's mode as 4-digit octal, else null: " + modes +
			" A mode changed in the workspace is restored by a chmod. Directories in the copy are `0755`.",
	}
	attrs["file_count"] = schema.Int64Attribute{Computed: true, MarkdownDescription: "Number of regular files copied."}
	attrs["total_bytes"] = schema.Int64Attribute{Computed: true, MarkdownDescription: "Sum of the copied files' sizes, in bytes."}
	attrs["tree_sha256"] = schema.StringAttribute{
		Computed: true,
		MarkdownDescription: "Digest of the whole tree: hex SHA-256 of the `sha256sum` lines of every file, sorted by path " +
			"(`find . -type f -printf '%P\\n' | LC_ALL=C sort | xargs -r -d '\\n' sha256sum | sha256sum` in the copied directory).",
	}
	attrs["changes"] = schema.ListAttribute{
		Computed: true, ElementType: types.StringType,
		MarkdownDescription: "What the apply changes in the workspace, in path order: `add <path>`, `modify <path>`, " +
			"`remove <path>`, `chmod <path> <mode>`; at most " + strconv.Itoa(maxChanges) + " lines, then `and <n> more: <k> add, <k> remove`. " +
			"Null on creation (every file is added). Known at plan time whenever the tree is; kept until the next change, except " +
			"that a refresh finding the copy changed in the workspace sets it null.",
	}
}

// recording reports whether files and file_permissions are recorded; an
// unknown record_files counts as recording (the maps are then unknown).
func (t *treeModel) recording() bool { return t.RecordFiles.ValueBool() || t.RecordFiles.IsUnknown() }

func (t *treeModel) setSummary(ctx context.Context, s workspace.TreeSummary) {
	t.Files, t.FileModes = types.MapNull(types.StringType), types.MapNull(types.StringType)
	switch {
	case t.RecordFiles.IsUnknown():
		t.Files, t.FileModes = types.MapUnknown(types.StringType), types.MapUnknown(types.StringType)
	case t.RecordFiles.ValueBool():
		t.Files, _ = types.MapValueFrom(ctx, types.StringType, s.Files)
		t.FileModes, _ = types.MapValueFrom(ctx, types.StringType, s.Modes)
	}
	t.FileCount = types.Int64Value(int64(len(s.Files)))
	t.TotalBytes = types.Int64Value(s.TotalBytes)
	t.TreeSHA256 = types.StringValue(s.SHA256)
}

func (t *treeModel) unknownSummary() {
	t.Files, t.FileModes = types.MapNull(types.StringType), types.MapNull(types.StringType)
	if t.recording() {
		t.Files, t.FileModes = types.MapUnknown(types.StringType), types.MapUnknown(types.StringType)
	}
	t.FileCount = types.Int64Unknown()
	t.TotalBytes = types.Int64Unknown()
	t.TreeSHA256 = types.StringUnknown()
	t.Changes = types.ListUnknown(types.StringType)
}

// keepTree plans the tree in state (prior) again, from state written
// before the copied tree was kept in private state: the files recorded
// there, if any, are kept when still recorded, else unknown until the apply.
func (t *treeModel) keepTree(prior *treeModel) {
	t.FileCount, t.TotalBytes, t.TreeSHA256, t.Changes = prior.FileCount, prior.TotalBytes, prior.TreeSHA256, prior.Changes
	t.Files, t.FileModes = types.MapNull(types.StringType), types.MapNull(types.StringType)
	if t.recording() {
		t.Files, t.FileModes = prior.Files, prior.FileModes
		if prior.Files.IsNull() {
			t.Files, t.FileModes = types.MapUnknown(types.StringType), types.MapUnknown(types.StringType)
		}
	}
}

// summary is the planned tree with its files, or nil when the plan does
// not hold them (unknown, or not recorded).
func (t *treeModel) summary(ctx context.Context) *workspace.TreeSummary {
	if t.TreeSHA256.IsNull() || t.TreeSHA256.IsUnknown() || t.Files.IsNull() || t.Files.IsUnknown() {
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
		t.seen = &st.Tree
	}
	return st.EntryState, err
}

// recordSeen keeps the tree observeTree read in private state, where the
// next plan compares it with the planned tree. A tree that differs from
// the one seen before was changed in the workspace: `changes`, which told
// what the last apply did, is cleared, so the plan that repairs the tree
// always shows its own changes.
func (t *treeModel) recordSeen(ctx context.Context, p privateState) diag.Diagnostics {
	if t.seen == nil {
		return nil
	}
	if before := getTree(ctx, p, observedKey); before != nil && !sameTree(before, t.seen) {
		t.Changes = types.ListNull(types.StringType)
	}
	return setTree(ctx, p, observedKey, t.seen)
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
		if _ = t.Files.ElementsAs(ctx, &held, false); held == nil {
			if seen := getTree(ctx, private, observedKey); seen != nil {
				held = seen.Files
			}
		}
		names = sortedKeys(held)
	}
	return ws.RemoveTree(ctx, rel, names)
}

// writtenKey is the private state key holding the JSON list of files this
// resource wrote: destroy removes those and nothing else, even though
// `files` (refreshed from the workspace) may list files written by others.
const writtenKey = "written"

// recordWritten records the keys of files (path -> digest) in private
// state as the files this resource wrote.
func recordWritten(ctx context.Context, p privateSetter, files types.Map) diag.Diagnostics {
	var m map[string]string
	diags := files.ElementsAs(ctx, &m, false)
	return append(diags, recordWrittenNames(ctx, p, sortedKeys(m))...)
}

func recordWrittenNames(ctx context.Context, p privateSetter, names []string) diag.Diagnostics {
	var diags diag.Diagnostics
	b, err := json.Marshal(names)
	if err != nil {
		diags.AddError("Recording written files failed", err.Error())
		return diags
	}
	return append(diags, p.SetKey(ctx, writtenKey, b)...)
}
