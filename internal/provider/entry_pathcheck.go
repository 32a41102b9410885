package provider

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// checkEntryPath is the plan-time half of the policy for a path whose type
// changed out of band: when an entry is to be created or changed, what is
// at its path in the workspace must be what the entry makes (or nothing);
// otherwise the plan fails on `path`, naming what is there. The provider
// never removes what it did not write to make room. A no-op plan is not
// checked (Read drops an entry whose path changed type, so that shows as a
// creation).
func checkEntryPath(ctx context.Context, eng *workspace.Engine, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, kind workspace.PathType) {
	if eng == nil || req.Plan.Raw.IsNull() || (!req.State.Raw.IsNull() && req.State.Raw.Equal(req.Plan.Raw)) {
		return
	}
	id, rel, ok := plannedPlace(ctx, req, resp)
	if !ok {
		return
	}
	ws, err := eng.Open(ctx, id)
	if err == nil {
		err = ws.CheckEntryPath(ctx, rel, kind)
	}
	var oe *workspace.ObstructionError
	switch {
	case workspaceGone(err) && req.State.Raw.IsNull():
		// A known id of a workspace that no longer exists (a literal, or
		// one read from elsewhere): the apply could only fail.
		addEngineAttributeError(&resp.Diagnostics, path.Root("workspace_id"), "Workspace "+id+" no longer exists", err)
	case workspaceStopped(err), workspaceGone(err):
		// Nothing can be looked at; the apply starts a stopped container,
		// and a write never replaces what stands in its way.
	case errors.As(err, &oe):
		addEngineAttributeError(&resp.Diagnostics, path.Root("path"), "Path "+rel+" is taken by something else", err)
	case err != nil:
		addEngineAttributeError(&resp.Diagnostics, path.Root("path"), "Cannot check path "+rel+" in the workspace", err)
	}
}

// checkFreshCopy refuses, at plan time, a new copy whose directory already
// holds files (see workspace.Workspace.CheckFreshTree).
func checkFreshCopy(ctx context.Context, eng *workspace.Engine, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if eng == nil || req.Plan.Raw.IsNull() || !req.State.Raw.IsNull() {
		return
	}
	id, rel, ok := plannedPlace(ctx, req, resp)
	if !ok {
		return
	}
	ws, err := eng.Open(ctx, id)
	if err == nil {
		err = ws.CheckFreshTree(ctx, rel)
	}
	addFreshCopyError(&resp.Diagnostics, err, rel)
}

// plannedPlace returns the planned workspace id and normalised path of an
// entry, ok=false when either is not known yet or invalid (the validators
// report that).
func plannedPlace(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) (ws, rel string, ok bool) {
	var w, p types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("workspace_id"), &w)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("path"), &p)...)
	if resp.Diagnostics.HasError() || w.IsUnknown() || w.IsNull() || p.IsUnknown() || p.IsNull() || !workspace.ValidID(w.ValueString()) {
		return "", "", false
	}
	rel, err := normalizedPath(p)
	if err != nil {
		return "", "", false
	}
	return w.ValueString(), rel, true
}

// addFreshCopyError reports a CheckFreshTree refusal on path; a workspace
// that cannot be looked into (stopped, gone) is left to the apply.
func addFreshCopyError(diags *diag.Diagnostics, err error, rel string) {
	switch {
	case err == nil, workspaceStopped(err), workspaceGone(err):
	case errors.Is(err, workspace.ErrOccupied):
		addEngineAttributeError(diags, path.Root("path"), "Path "+rel+" already holds files", err)
	default:
		addEngineAttributeError(diags, path.Root("path"), "Cannot check path "+rel+" in the workspace", err)
	}
}
