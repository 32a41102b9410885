package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// undoFailedCreate removes what a failed create of sandbox_manifest did
// (workspace.UndoManifest): Terraform records no state for it, so nothing
// else ever would. Its own failure is a second error saying what is left
// and how to remove it by hand.
func undoFailedCreate(ctx context.Context, ws *workspace.Workspace, plan *workspace.ManifestPlan, diags *diag.Diagnostics) {
	// An interrupted apply is undone too.
	warnings, err := ws.UndoManifest(context.WithoutCancel(ctx), plan)
	for _, w := range warnings {
		diags.AddWarning("Directory left in place", w)
	}
	if err == nil {
		return
	}
	addEngineError(diags, "Undoing the failed manifest apply failed", fmt.Errorf("%w\n\nNo Terraform state records "+
		"this manifest, so no later apply or destroy removes what is left. In workspace %s (root %s), unmount the entry named above "+
		"(fusermount3 -u on its mount path, which also ends its mount helper), delete the session directories its helper "+
		"left under .sandbox-rclone-config, .sandbox-mountpoint-env, .sandbox-blobfuse-config and .sandbox-blobfuse-cache "+
		"(they hold its credentials) and the manifest's files; or destroy the workspace", err, ws.ID, ws.Root))
}
