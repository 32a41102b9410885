package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// privateDaemonKey is the private-state key holding the id of the Docker
// daemon a docker workspace was created on.
const privateDaemonKey = "docker_daemon"

// privatePausedKey records whether the container was paused (rather than
// stopped) when last read: unpausing changes neither started_at nor ports.
const privatePausedKey = "paused"

type privateDaemon struct {
	ID string `json:"id"`
}

// rememberDaemon records the configured daemon's id in private state.
func (r *workspaceResource) rememberDaemon(ctx context.Context, p privateSetter, diags *diag.Diagnostics) {
	id, err := r.eng.DockerDaemonID(ctx)
	if err != nil || id == "" {
		return // the check it serves is skipped, nothing else depends on it
	}
	data, _ := json.Marshal(privateDaemon{ID: id})
	diags.Append(p.SetKey(ctx, privateDaemonKey, data)...)
}

// onOtherDaemon reports (with an error diagnostic) that a docker workspace
// not found on the configured daemon was created on another one: the
// provider is pointed at the wrong daemon, and re-creating the workspace
// would orphan the real one.
func (r *workspaceResource) onOtherDaemon(ctx context.Context, p privateGetter, id string, diags *diag.Diagnostics) bool {
	data, d := p.GetKey(ctx, privateDaemonKey)
	if d.HasError() || len(data) == 0 {
		return false
	}
	var want privateDaemon
	if json.Unmarshal(data, &want) != nil || want.ID == "" {
		return false
	}
	have, err := r.eng.DockerDaemonID(ctx)
	if err != nil || have == want.ID {
		return false
	}
	diags.AddAttributeError(path.Root("id"), "Workspace is on another Docker daemon",
		fmt.Sprintf("workspace %s was created on the Docker daemon with id %s, but the provider is configured for the daemon "+
			"with id %s, which has no such container. Configure the provider's docker_host for the daemon that holds it, or, "+
			"if that daemon and its containers are gone for good, remove the workspace from state (terraform state rm).", id, want.ID, have))
	return true
}

// ImportState takes a workspace id, the bare UUID of a docker workspace (found
// by its container's label), or the absolute root of a local workspace
// (which must carry the workspace marker). Nothing is written.
func (r *workspaceResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	in := req.ID
	var (
		w   *workspace.Workspace
		err error
	)
	switch {
	case strings.HasPrefix(in, "/"):
		w, err = r.eng.AdoptLocal(ctx, in)
	case workspace.ValidUUID(in):
		w, err = r.eng.AdoptDocker(ctx, in)
	case workspace.ValidID(in):
		w, err = r.eng.Open(ctx, in)
	default:
		resp.Diagnostics.AddError("Invalid import ID",
			fmt.Sprintf("expected a workspace id (\"local:<uuid>:<root>\" or \"docker:<uuid>\"), the UUID of a docker workspace, "+
				"or the absolute root directory of a local workspace; got %q", in))
		return
	}
	if err != nil {
		addEngineError(&resp.Diagnostics, "Importing the workspace failed", err)
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), w.ID)...)
	// Until an apply records the configured value, an imported local
	// workspace is kept on destroy: importing and destroying must not delete
	// a directory. A container is the provider's own (it carries the
	// workspace label), so replacing or destroying it removes it.
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("keep_on_destroy"), w.ContainerID == "")...)
	if w.ContainerID != "" {
		r.rememberDaemon(ctx, resp.Private, &resp.Diagnostics)
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
