package provider

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// privatePausedKey records whether the container was paused (rather than
// stopped) when last read: unpausing changes neither started_at nor ports.
const privatePausedKey = "paused"

// ImportState takes a workspace id, the bare UUID of a docker workspace (found
// by its container's label), or the absolute root of a local workspace
// (which must carry the workspace marker). Nothing is written.
func (r *workspaceResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	in := req.ID
	var (
		w   *workspace.Workspace
		err error
		by  workspaceKind
	)
	for _, k := range workspaceKinds {
		var ok bool
		if w, ok, err = k.adopt(ctx, r.eng, in); ok {
			by = k
			break
		}
	}
	switch {
	case by != nil:
	case workspace.ValidID(in):
		if w, err = r.eng.Open(ctx, in); err == nil {
			by = kindNamed(w.Kind)
		}
	default:
		resp.Diagnostics.AddError("Invalid import ID",
			fmt.Sprintf("expected a workspace id (\"local:<uuid>:<root>\", \"docker:<uuid>\" or \"kubernetes:<uuid>:<namespace>\"), the UUID of a docker workspace, "+
				"or the absolute root directory of a local workspace; got %q", in))
		return
	}
	if err != nil {
		addEngineError(&resp.Diagnostics, "Importing the workspace failed", err)
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), w.ID)...)
	if by != nil {
		by.imported(ctx, r.eng, w, resp)
	}
}

// UpgradeState upgrades version 0 state, whose id was a bare UUID, to ids
// that say where the workspace is (see workspace.ParseID).
func (r *workspaceResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{0: {StateUpgrader: upgradeWorkspaceV0}}
}

func upgradeWorkspaceV0(_ context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
	var st map[string]any
	if err := json.Unmarshal(req.RawState.JSON, &st); err != nil {
		resp.Diagnostics.AddError("Upgrading sandbox_workspace state failed", err.Error())
		return
	}
	id, _ := st["id"].(string)
	root, _ := st["root"].(string)
	if workspace.ValidUUID(id) {
		if cid, _ := st["container_id"].(string); cid != "" {
			st["id"] = workspace.DockerID(id)
		} else if root != "" {
			st["id"] = workspace.LocalID(id, root)
		}
	}
	if _, ok := st["running"]; !ok {
		st["running"] = true
	}
	if d, ok := st["docker"].(map[string]any); ok && d["restart_policy"] == nil {
		d["restart_policy"] = "no" // what containers were created with
	}
	data, err := json.Marshal(st)
	if err != nil {
		resp.Diagnostics.AddError("Upgrading sandbox_workspace state failed", err.Error())
		return
	}
	resp.DynamicValue = &tfprotov6.DynamicValue{JSON: data}
}
