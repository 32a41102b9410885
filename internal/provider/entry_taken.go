package provider

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// An entry in state whose path was taken inside its workspace by something
// of another type (a directory where its file was, a file where its
// directory was, a symlink, a parent replaced by a file) stays in state;
// Read records what is in the way under takenKey in private state. The
// plan then replaces the entry: the plan names the path and how many files
// the replacement removes, the destroy of the old entry leaves the
// workspace alone (what is in the way is not what it wrote), and the
// create removes what is in the way (as the apply finds it, never outside
// the workspace) and writes the entry again. So whatever runs inside a
// workspace cannot block the plans of its configuration.
//
// A path taken before the entry was ever created is not covered: that is
// still refused at plan (checkEntryPath), as is content a copy did not
// write (checkFreshCopy); host directories outside workspaces are never
// cleared.
const takenKey = "taken"

// takenRecord is the private-state value under takenKey.
type takenRecord struct {
	Workspace string `json:"workspace"`
	Entry     string `json:"entry"`
	Path      string `json:"path"`
	Found     string `json:"found"`
	Files     int    `json:"files"`
}

// recordTaken keeps t in private state, or drops the record when t is nil.
func recordTaken(ctx context.Context, p privateSetter, wsID string, t *workspace.Taken) diag.Diagnostics {
	if t == nil {
		return p.SetKey(ctx, takenKey, nil)
	}
	b, err := json.Marshal(takenRecord{Workspace: wsID, Entry: t.Entry, Path: t.Path, Found: t.Found, Files: t.Files})
	if err != nil {
		var d diag.Diagnostics
		d.AddError("Cannot record the taken path "+t.Entry, err.Error())
		return d
	}
	return p.SetKey(ctx, takenKey, b)
}

// takenFor returns the record kept in private state when it is about the
// entry at rel of workspace wsID, else nil.
func takenFor(ctx context.Context, p privateGetter, wsID, rel string) *takenRecord {
	if p == nil {
		return nil
	}
	b, diags := p.GetKey(ctx, takenKey)
	if diags.HasError() || len(b) == 0 {
		return nil
	}
	var t takenRecord
	if json.Unmarshal(b, &t) != nil || t.Workspace != wsID || t.Entry != rel {
		return nil
	}
	return &t
}

// describe says what is in the way and what the replacement removes.
func (t *takenRecord) describe() string {
	where := t.Path
	if t.Path != t.Entry {
		where += ", a parent directory of " + t.Entry + ","
	}
	return fmt.Sprintf("%s is %s now, holding %d file(s) that this configuration did not write (written inside the "+
		"workspace after the last apply). The apply removes %s with everything below it", where, t.Found, t.Files, t.Path)
}

// warnTakenDestroy warns, in the plan of a destroy, that the destroy of an
// entry whose path was taken removes what stands there.
func warnTakenDestroy(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || req.Private == nil {
		return
	}
	var w, p types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("workspace_id"), &w)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("path"), &p)...)
	rel, err := normalizedPath(p)
	if err != nil {
		return
	}
	if t := takenFor(ctx, req.Private, w.ValueString(), rel); t != nil {
		resp.Diagnostics.AddWarning(fmt.Sprintf("Path %s is taken by something else: destroying the entry removes it (%d file(s))", t.Path, t.Files),
			t.describe()+" when it destroys this entry.")
	}
}

// planTaken handles, in ModifyPlan, an entry whose path was taken: with a
// prior state, it plans the replacement (absolute_path becomes unknown and
// requires it: Terraform replaces only for an attribute whose planned value
// differs from state, and path and workspace_id do not) and warns on
// path with the count of files the apply removes. It returns the record
// (the plan of the new entry skips the path checks it answers) and whether
// the plan is complete.
func planTaken(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) (*takenRecord, bool) {
	id, rel, ok := plannedPlace(ctx, req, resp)
	if !ok {
		return nil, false
	}
	t := takenFor(ctx, req.Private, id, rel)
	if t == nil || req.State.Raw.IsNull() {
		return t, false
	}
	var stateID types.String
	if resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("workspace_id"), &stateID)...); stateID.ValueString() != id {
		return nil, false // another workspace: the workspace_id change replaces the entry anyway
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("absolute_path"), types.StringUnknown())...)
	resp.RequiresReplace = append(resp.RequiresReplace, path.Root("absolute_path"))
	resp.Diagnostics.AddAttributeWarning(path.Root("path"),
		fmt.Sprintf("Path %s is taken by something else: the plan replaces it (%d file(s) removed)", t.Path, t.Files),
		t.describe()+" and writes the entry again.")
	if resp.Private != nil {
		b, _ := req.Private.GetKey(ctx, takenKey)
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, takenKey, b)...)
	}
	return t, true
}
