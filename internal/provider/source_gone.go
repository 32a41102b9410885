package provider

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// sourceGone reports whether err says a host source (or a directory
// above it) no longer exists.
func sourceGone(err error) bool {
	var se *sandbox.Error
	return errors.As(err, &se) && se.Context["reason"] == sandbox.ReasonPathNotFound
}

// keepGoneSource decides what the plan of an entry whose host source is
// gone does: an entry already copied from that same source keeps what it
// copied (the destroy of a workspace whose checkout changed must never need
// the source), with a warning; a create or a new source needs it, and that
// is the error. It reports whether the plan may go on from state, reading
// it into prior.
func keepGoneSource(ctx context.Context, req resource.ModifyPlanRequest, src types.String, prior any, err error, diags *diag.Diagnostics) bool {
	if !sourceGone(err) || req.State.Raw.IsNull() {
		return false
	}
	var was types.String
	if req.State.GetAttribute(ctx, path.Root("source"), &was).HasError() || !was.Equal(src) {
		return false
	}
	if diags.Append(req.State.Get(ctx, prior)...); diags.HasError() {
		return false
	}
	var detail diag.Diagnostics
	addEngineError(&detail, "", err)
	diags.AddAttributeWarning(path.Root("source"), "Host source is gone",
		"The entry keeps what was copied from "+src.ValueString()+" before; the plan shows no change to its content, "+
			"and a destroy does not need the source. An apply that must copy it again (a new source, or a replacement) "+
			"fails until it is back.\n\n"+detail[0].Detail())
	return true
}
