package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/s3store"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// writeS3Index records an S3 snapshot taken with inputs in an index object
// beside its archive, where data.sandbox_snapshots finds it; a failure
// removes the archive again (it could not be found).
func (r *snapshotResource) writeS3Index(ctx context.Context, t workspace.S3Target, res workspace.SnapshotS3Result,
	m snapshotResourceModel, diags *diag.Diagnostics) {
	if diags.HasError() || m.InputsSHA256.IsNull() || m.InputsSHA256.IsUnknown() {
		return
	}
	err := r.eng.WriteS3SnapshotIndex(ctx, t, workspace.SnapshotIndex{SnapshotID: m.SnapshotID.ValueString(),
		InputsSHA256: m.InputsSHA256.ValueString(), SHA256: m.SHA256.ValueString(), Size: m.Size.ValueInt64()})
	if err == nil {
		return
	}
	diags.AddError("Snapshot failed", err.Error())
	cctx, cancel := cleanupContext(ctx)
	defer cancel()
	if rerr := r.eng.RemoveObject(cctx, res.Location, t.Credentials, res.ETag, res.Size); rerr != nil {
		diags.AddWarning("The snapshot object was not removed", rerr.Error())
	}
}

// removeS3Index deletes the index object of a snapshot taken with inputs.
func (r *snapshotResource) removeS3Index(ctx context.Context, loc s3store.Location, creds s3store.Credentials,
	m snapshotResourceModel, diags *diag.Diagnostics) {
	if m.InputsSHA256.IsNull() {
		return
	}
	if err := r.eng.RemoveS3SnapshotIndex(ctx, loc, creds); err != nil {
		diags.AddWarning("Snapshot index left in place", err.Error())
	}
}
