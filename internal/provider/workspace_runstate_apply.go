package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// planRunState plans the declared run state: running follows run_state,
// and an apply that has to start a stopped container (to reach the
// declared state, or to change it at all) gives it a new start time and,
// unless it ends stopped, new host ports. A paused container is unpaused:
// it keeps its start time and ports.
func planRunState(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, paused bool) {
	changes := !resp.Plan.Raw.Equal(req.State.Raw)
	var planned, observed types.String
	var running types.Bool
	resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root("run_state"), &planned)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("run_state"), &observed)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("running"), &running)...)
	if resp.Diagnostics.HasError() || running.IsUnknown() {
		return
	}
	was := observed.ValueString()
	if observed.IsNull() || observed.IsUnknown() {
		// State written before run_state: running and the private
		// flag tell.
		switch {
		case running.IsNull() || running.ValueBool():
			was = workspace.RunRunning
		case paused:
			was = workspace.RunPaused
		default:
			was = workspace.RunStopped
		}
	}
	want := workspace.RunRunning
	if !planned.IsNull() {
		want = planned.ValueString()
	}
	if planned.IsUnknown() {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("running"), types.BoolUnknown())...)
	} else {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("running"), want == workspace.RunRunning)...)
	}
	if !changes || was != workspace.RunStopped {
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("started_at"), types.StringUnknown())...)
	if want != workspace.RunStopped {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("endpoints"),
			types.ListUnknown(types.ObjectType{AttrTypes: endpointAttrTypes}))...)
	}
}

// bringUp makes w run for an update: a stopped container is started
// (and, with wait_until = "healthy", waited for), a paused one unpaused.
func bringUp(ctx context.Context, eng *workspace.Engine, w *workspace.Workspace, m workspaceModel, diags *diag.Diagnostics) {
	if !workspace.HasRunState(w) {
		if err := eng.Start(ctx, w); err != nil {
			addEngineError(diags, "Starting the workspace failed", err)
		}
		return
	}
	was := w.RunState()
	if err := eng.SetRunState(ctx, w, workspace.RunRunning); err != nil {
		addEngineError(diags, "Starting the workspace's container failed", err)
		return
	}
	if was == workspace.RunStopped && m.WaitUntil.ValueString() == workspace.WaitHealthy && m.RunState.ValueString() != workspace.RunStopped {
		if err := eng.WaitHealthy(ctx, w); err != nil {
			addEngineAttributeError(diags, path.Root("wait_until"), "The workspace did not become healthy", err)
		}
	}
}

// waitReady waits, with wait_until = "healthy", until the new workspace
// is ready; one that is not is destroyed again and the apply fails.
func (r *workspaceResource) waitReady(ctx context.Context, w *workspace.Workspace, m workspaceModel, diags *diag.Diagnostics) bool {
	if m.WaitUntil.ValueString() != workspace.WaitHealthy {
		return true
	}
	err := r.eng.WaitHealthy(ctx, w)
	if err == nil {
		return true
	}
	msg := "it was destroyed again"
	if derr := r.eng.Destroy(context.WithoutCancel(ctx), w.ID, false); derr != nil {
		msg = "destroying it again failed too: " + derr.Error()
	}
	addEngineAttributeError(diags, path.Root("wait_until"), "The workspace did not become healthy",
		fmt.Errorf("%w\n\nThe workspace was created, but %s; the results of the check come from inside the workspace", err, msg))
	return false
}

// settle puts w in its declared run state at the end of a create or
// update and records the observed state in m.
func settle(ctx context.Context, eng *workspace.Engine, w *workspace.Workspace, m *workspaceModel, diags *diag.Diagnostics) {
	want := m.RunState.ValueString()
	if want == "" {
		want = workspace.RunRunning
	}
	if workspace.HasRunState(w) {
		if err := eng.SetRunState(ctx, w, want); err != nil {
			addEngineAttributeError(diags, path.Root("run_state"), "Setting the workspace's run state failed", err)
			return
		}
	}
	setRunState(w, m)
	if workspace.HasRunState(w) {
		m.RunState = types.StringValue(w.RunState())
	}
}

// observeRunState records the observed run state in m on a read, and, when
// state has no wait_until (after an import), what the workspace was
// created with.
func observeRunState(ctx context.Context, eng *workspace.Engine, w *workspace.Workspace, m *workspaceModel) {
	if workspace.HasRunState(w) {
		m.RunState = types.StringValue(w.RunState())
	} else if m.RunState.IsNull() || m.RunState.IsUnknown() {
		m.RunState = types.StringValue(workspace.RunRunning)
	}
	if !m.WaitUntil.IsNull() && !m.WaitUntil.IsUnknown() {
		return
	}
	m.WaitUntil = types.StringValue(workspace.WaitStarted)
	if w.Kind == "docker" {
		if info, err := eng.DescribeDocker(ctx, w); err == nil && info.WaitUntil != "" {
			m.WaitUntil = types.StringValue(info.WaitUntil)
		}
	}
}

// wakeForEntry brings a stopped or paused workspace up for an entry's
// change; the returned function puts it back in the state it was found
// in, reporting a failure in diags.
func wakeForEntry(ctx context.Context, eng *workspace.Engine, ws *workspace.Workspace, diags *diag.Diagnostics) (done func(), ok bool) {
	restore, err := eng.Wake(ctx, ws)
	if err != nil {
		addEngineAttributeError(diags, path.Root("workspace_id"), "Starting the stopped workspace for the write failed", err)
		return func() {}, false
	}
	return func() {
		if err := restore(context.WithoutCancel(ctx)); err != nil {
			addEngineAttributeError(diags, path.Root("workspace_id"), "Putting the workspace back in its run state failed", err)
		}
	}, true
}
