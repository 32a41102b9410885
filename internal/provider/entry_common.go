package provider

import (
	"context"
	"errors"
	"fmt"
	pathpkg "path"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// DefaultPermissions is the Python SDK's default entry mode, rwxr-xr-x (design/sdk-model.md §2.1).
const DefaultPermissions = "0755"

// entryModel holds the attributes every entry resource has.
type entryModel struct {
	ID            types.String     `tfsdk:"id"`
	WorkspaceID   types.String     `tfsdk:"workspace_id"`
	Path          types.String     `tfsdk:"path"`
	Permissions   PermissionsValue `tfsdk:"permissions"`
	Group         types.String     `tfsdk:"group"`
	Owner         types.String     `tfsdk:"owner"`
	Description   types.String     `tfsdk:"description"`
	Ephemeral     types.Bool       `tfsdk:"ephemeral"`
	AbsolutePath  types.String     `tfsdk:"absolute_path"`
	ManifestEntry types.String     `tfsdk:"manifest_entry"`
}

func (m *entryModel) common() *entryModel { return m }

// entryAttributes returns the schema attributes shared by every entry
// resource; noun names the entry in descriptions ("directory", "file").
func entryAttributes(noun string) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "`<workspace_id>/<path>`, with `path` normalised as the Python SDK's manifest paths. Also the import ID.",
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		"workspace_id": schema.StringAttribute{
			Required:            true,
			MarkdownDescription: "`id` of the `sandbox_workspace` the " + noun + " belongs to. Changing it replaces the " + noun + ".",
			PlanModifiers:       []planmodifier.String{replaceWorkspaceID{}},
			Validators:          []validator.String{workspaceIDValidator{}},
		},
		"path": schema.StringAttribute{
			Required:            true,
			MarkdownDescription: entryPathDescription(noun),
			PlanModifiers:       []planmodifier.String{replaceIfPathMoves()},
			Validators:          []validator.String{entryPathValidator{}},
		},
		"permissions": schema.StringAttribute{
			CustomType:          PermissionsType{},
			Optional:            true,
			Computed:            true,
			Default:             stringdefault.StaticString(DefaultPermissions),
			MarkdownDescription: entryPermissionsDescription(noun),
		},
		"group": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "Group name (POSIX portable, checked at plan time) or numeric gid to `chgrp` the " + noun +
				" to before the chmod, as the Python SDK does. Unset leaves the group alone; `\"\"` is refused. An unknown group fails " +
				"the apply naming it. A group changed out of band is restored by the next apply.",
			Validators: []validator.String{groupRefValidator},
		},
		"owner": ownerAttribute(noun),
		"description": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Free text, the Python SDK's entry `description`.",
		},
		"ephemeral": schema.BoolAttribute{
			Optional:            true,
			Computed:            true,
			Default:             booldefault.StaticBool(false),
			MarkdownDescription: ephemeralDescription,
		},
		"absolute_path": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "Absolute path of the " + noun + " inside the workspace (`<root>/<path>`).",
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
	}
}

// normalizedPath validates a configured entry path and returns its POSIX
// normal form.
func normalizedPath(p types.String) (string, error) {
	return posix.ValidateEntryPath(p.ValueString())
}

// meta turns the configured permissions and group into engine metadata.
func (m entryModel) meta() (workspace.Meta, error) {
	perms, err := m.Permissions.Permissions()
	if err != nil {
		return workspace.Meta{}, err
	}
	return workspace.Meta{Perm: perms.Perm(), Group: m.Group.ValueString(), Owner: m.Owner.ValueString()}, nil
}

// entryID builds the resource id of an entry.
func entryID(workspaceID, rel string) string { return workspaceID + "/" + rel }

// parseEntryImportID splits "<workspace_id>/<path>".
func parseEntryImportID(id string) (string, string, error) {
	ws, rel, err := workspace.SplitEntryID(id)
	if err == nil && !workspace.ValidID(ws) {
		err = fmt.Errorf("%q does not start with a workspace id", id)
	}
	if err == nil && workspace.ValidUUID(ws) {
		err = fmt.Errorf("%q starts with a bare UUID: use the workspace's id as state shows it, "+
			"docker:<uuid>, kubernetes:<uuid>:<namespace> or local:<uuid>:<root>", id)
	}
	if err != nil {
		return "", "", fmt.Errorf("expected an import ID of the form <workspace_id>/<path>, such as "+
			"docker:0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11/config/app.toml: %w", err)
	}
	norm, err := posix.ValidateEntryPath(rel)
	if err != nil {
		return "", "", err
	}
	return ws, norm, nil
}

// observeMeta updates permissions, group and owner in m from what is on
// disk, so that out-of-band changes show in the plan as updates that
// restore them.
func (m *entryModel) observeMeta(st workspace.EntryState) {
	observed := posix.PermissionsFromMode(uint32(st.Info.Perm))
	if m.Permissions.IsNull() || m.Permissions.IsUnknown() ||
		!posix.PermissionsEqualString(m.Permissions.ValueString(), observed.ChmodArg()) {
		m.Permissions = NewPermissionsValue(observed.ChmodArg())
	}
	m.Group = observeID(m.Group, st.Info.Group, st.Info.Gid, st.GroupBelow)
	m.Owner = observeID(m.Owner, st.Info.Owner, st.Info.Uid, st.OwnerBelow)
}

// addEngineError turns an engine error into a diagnostic. Structured
// sandbox errors keep their Python SDK message as the detail's first line and
// their context (reason, child, ...) below it.
func addEngineError(diags *diag.Diagnostics, summary string, err error) {
	var se *sandbox.Error
	if errors.As(err, &se) {
		detail := se.Message
		if d := se.Detail(); d != "" {
			detail += "\n\n" + d
		}
		if se.Cause != nil && !strings.Contains(detail, se.Cause.Error()) {
			detail += "\ncause: " + se.Cause.Error()
		}
		diags.AddError(posix.EscapeControl(summary), posix.EscapeControl(detail+engineAdvice(err)))
		return
	}
	diags.AddError(posix.EscapeControl(summary), posix.EscapeControl(err.Error()+engineAdvice(err)))
}

// engineAdvice is what a Terraform user can do about an engine error the
// engine marks with one of its sentinel errors ("" for others).
func engineAdvice(err error) string {
	var se *sandbox.Error
	switch {
	case errors.As(err, &se) && se.Code == sandbox.CodeLocalFileReadError && se.Context["file_type"] == "directory":
		return "\n\nThe source is a directory, and sandbox_file.source (or a local_file entry's src) copies one regular " +
			"file: copy a directory with sandbox_local_dir (a local_dir entry), or name a file inside it."
	case errors.As(err, &se) && se.Code == sandbox.CodeLocalDirReadError && se.Context["file_type"] != nil:
		return fmt.Sprintf("\n\nThe source is a %v, and sandbox_local_dir.source (or a local_dir entry's src) copies a "+
			"directory: copy a single file with sandbox_file.source (a local_file entry).", se.Context["file_type"])
	case errors.As(err, &se) && se.Code == sandbox.CodeLocalFileReadError && se.Context["file_type"] != nil:
		return fmt.Sprintf("\n\nThe source is a %v; sandbox_file.source (or a local_file entry's src) copies only a "+
			"regular file: point it at one.", se.Context["file_type"])
	case errors.As(err, &se) && se.Context["reason"] == sandbox.ReasonOutsideBaseDir:
		return "\n\nHost sources (a file or directory copied in, and a Git repository given by a file:// URL or a local " +
			"path) must lie under Terraform's working directory (or the provider's working_dir). Move the source there, " +
			"or allow its directory with the provider's extra_path_grants = [{ path = \"...\", read_only = true }]."
	case errors.As(err, &se) && se.Code == sandbox.CodeInvalidManifestPath && se.Context["reason"] == sandbox.ReasonEscapeRoot:
		advice := "\n\nThe Python SDK refuses every \"..\" segment in an entry path, even one that stays inside the root " +
			"(\"notes/../evil\" is refused like \"../evil\"): write the path without \"..\""
		if rel, ok := se.Context["rel"].(string); ok {
			if c := pathpkg.Clean(rel); c != "." && c != ".." && !strings.HasPrefix(c, "../") && !pathpkg.IsAbs(c) {
				return advice + fmt.Sprintf(" (%s).", sandbox.QuoteText(c))
			}
		}
		return advice + "."
	case errors.Is(err, workspace.ErrEscapesRoot):
		return "\n\nA symlink inside the workspace stands where this entry (or one of its parent directories) " +
			"should be. It was not followed and nothing outside the workspace was touched. Remove the symlink " +
			"from the workspace, then plan again."
	case errors.Is(err, workspace.ErrSourceChanged), errors.Is(err, workspace.ErrRefMoved):
		return "\n\nNothing that changed was written. Run terraform plan again to review the change, then apply it."
	case errors.Is(err, workspace.ErrNotWorkspace):
		return "\n\nNothing in the directory was touched. If the workspace was deleted and this is another directory, " +
			"move it away or remove the workspace from state (terraform state rm); if another workspace took its place, " +
			"import that one (terraform import)."
	case errors.Is(err, workspace.ErrAlreadyWorkspace):
		return "\n\nImport it (terraform import) or choose another root."
	}
	return ""
}

// addEngineAttributeError is addEngineError scoped to an attribute.
func addEngineAttributeError(diags *diag.Diagnostics, p path.Path, summary string, err error) {
	var tmp diag.Diagnostics
	addEngineError(&tmp, summary, err)
	for _, d := range tmp {
		diags.AddAttributeError(p, d.Summary(), d.Detail())
	}
}

// workspaceGone reports whether err means the workspace vanished.
func workspaceGone(err error) bool { return errors.Is(err, workspace.ErrWorkspaceGone) }

// workspaceStopped reports whether err means the workspace's container is
// stopped: a read then keeps the prior state, and the workspace's own plan
// shows the start that the apply performs first.
func workspaceStopped(err error) bool { return errors.Is(err, workspace.ErrWorkspaceStopped) }

// engineFrom extracts the configured engine in a Configure method.
func engineFrom(data any, diags *diag.Diagnostics) *workspace.Engine {
	if data == nil {
		return nil
	}
	eng, ok := data.(*workspace.Engine)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("expected *workspace.Engine, got %T", data))
		return nil
	}
	return eng
}

// entryPathValidator checks an entry path with the Python SDK's manifest path
// rules at validate/plan time.
type entryPathValidator struct{}

func (entryPathValidator) Description(context.Context) string {
	return "must be a workspace-relative path without `..` segments"
}

func (v entryPathValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (entryPathValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	raw := req.ConfigValue.ValueString()
	rel, err := posix.ValidateEntryPath(raw)
	if err != nil {
		addEngineAttributeError(&resp.Diagnostics, req.Path, "Invalid entry path", err)
		return
	}
	if err := entryPlaceError(rel); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid entry path", err.Error())
		return
	}
	if strings.Contains(raw, `\`) {
		resp.Diagnostics.AddAttributeWarning(req.Path, "Backslash in entry path",
			fmt.Sprintf("path %s is written as %s: a backslash is a path separator to the Python SDK, as on Windows, not "+
				"part of a file name. Write %s to silence this warning.", sandbox.QuoteText(raw), sandbox.QuoteText(rel),
				sandbox.QuoteText(rel)))
	}
}

// entryPlaceError reports what makes a valid manifest path unusable for an
// entry resource: the filesystem's limits (posix.CheckEntryPlace, the
// same check sandbox_manifest and the manifest data source make), and the
// root itself: the root belongs to its sandbox_workspace, and a resource
// that owned it would own every other entry.
func entryPlaceError(rel string) error {
	if rel == "." {
		return fmt.Errorf("path %q names the workspace root itself; an entry resource needs a path below it, such as "+
			"\"notes.txt\" or \"skills\" (a Python SDK dir entry at \"\" or \".\", which sets the root's mode and group, "+
			"is applied by sandbox_manifest)", rel)
	}
	return posix.CheckEntryPlace(rel, true)
}

// entryPathProblem is entryPlaceError as a predicate following the path
// ("contains a NUL byte, ..."), "" when the path is usable.
func entryPathProblem(rel string) string {
	err := entryPlaceError(rel)
	if err == nil {
		return ""
	}
	return strings.TrimPrefix(strings.TrimPrefix(err.Error(), "path "+sandbox.QuoteText(rel)+" "), "path "+strconv.Quote(rel)+" ")
}

// workspaceIDValidator checks that a workspace_id has the shape of a
// workspace id, so a typo fails at plan time rather than at apply.
type workspaceIDValidator struct{}

func (workspaceIDValidator) Description(context.Context) string {
	return "must be the id of a sandbox_workspace"
}

func (v workspaceIDValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (workspaceIDValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := workspace.ParseID(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid workspace id", err.Error())
	}
}

// replaceWorkspaceID replaces the resource when its workspace_id changes,
// except when only the form of the id changes: state written when ids were
// bare UUIDs names the same workspace as the current id with that UUID, so
// that change is an in-place update.
type replaceWorkspaceID struct{}

func (replaceWorkspaceID) Description(context.Context) string {
	return "changing the workspace replaces the resource"
}

func (m replaceWorkspaceID) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (replaceWorkspaceID) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() || req.StateValue.Equal(req.PlanValue) {
		return // created, destroyed or unchanged
	}
	if req.PlanValue.IsUnknown() {
		resp.RequiresReplace = true
		return
	}
	old, err1 := workspace.ParseID(req.StateValue.ValueString())
	cur, err2 := workspace.ParseID(req.PlanValue.ValueString())
	sameWorkspace := err1 == nil && err2 == nil && old.Kind == "" && old.UUID == cur.UUID
	resp.RequiresReplace = !sameWorkspace
}

// importEntry is the shared ImportState of entry resources: it sets id,
// workspace_id and path; Read fills in the rest.
func importEntry(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ws, rel, err := parseEntryImportID(req.ID)
	if err != nil {
		addEngineError(&resp.Diagnostics, "Invalid import ID", err)
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), entryID(ws, rel))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("workspace_id"), ws)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("path"), rel)...)
	// "" is no owner a configuration can give: Read replaces it with the
	// owner it finds (see observeID), so the owner is read back.
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("owner"), "")...)
}
