package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// ephemeralDescription is the `ephemeral` attribute of every entry.
const ephemeralDescription = "The Python SDK's `ephemeral` flag: `true` leaves the entry out of every `sandbox_snapshot` of " +
	"the workspace (recorded with the workspace on apply, so a snapshot taken from any configuration leaves it out; " +
	"see the `sandbox_snapshot` page). Default `false`."

// recordEphemeral records the entry at rel as ephemeral in ws, or forgets
// it when it no longer is (wasEphemeral: the prior state's flag). An
// entry that never was ephemeral touches no record.
func recordEphemeral(ctx context.Context, ws *workspace.Workspace, rel string, ephemeral, wasEphemeral bool, diags *diag.Diagnostics) {
	var paths []string
	switch {
	case ephemeral:
		paths = []string{rel}
	case !wasEphemeral:
		return
	}
	if err := ws.RecordEphemeral(ctx, workspace.EntryOwner(rel), paths); err != nil {
		addEngineAttributeError(diags, path.Root("ephemeral"), "Cannot record the ephemeral entry", err)
	}
}

// forgetEphemeral removes owner's paths from the record of ws; a failure
// is a warning, as what it wrote is already gone.
func forgetEphemeral(ctx context.Context, ws *workspace.Workspace, owner string, diags *diag.Diagnostics) {
	if err := ws.RecordEphemeral(ctx, owner, nil); err != nil {
		diags.AddWarning("Ephemeral record left as it was", "The workspace's record of ephemeral entries still names "+
			"what was removed, so snapshots keep leaving that path out: "+err.Error())
	}
}
