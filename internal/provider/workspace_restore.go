package provider

import (
	"context"
	"fmt"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// restoreFromAttribute is sandbox_workspace.restore_from.
func restoreFromAttribute() schema.Attribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "Hydrate the new workspace from a `sandbox_snapshot` archive before any entry is applied: " +
			"`path` (relative to the working directory unless absolute) and its `sha256`. Every member is checked first; " +
			"one unsafe member refuses the archive, naming it, with nothing written. Changing it replaces the workspace.",
		Attributes: map[string]schema.Attribute{
			"path": schema.StringAttribute{Required: true, MarkdownDescription: "Host path of the archive.",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
			"sha256": schema.StringAttribute{Required: true, MarkdownDescription: "SHA-256 (hex) the archive must have.",
				Validators: []validator.String{stringvalidator.RegexMatches(sha256Hex, "must be 64 lower-case hex digits")}},
		},
		PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplace()},
	}
}

// restoreSource reads restore_from; ok is false when it is not set or not
// yet known.
func restoreSource(o types.Object) (p, sum string, ok bool) {
	if o.IsNull() || o.IsUnknown() {
		return "", "", false
	}
	a := o.Attributes()
	ps, _ := a["path"].(types.String)
	ss, _ := a["sha256"].(types.String)
	if ps.IsUnknown() || ss.IsUnknown() || ps.IsNull() || ss.IsNull() {
		return "", "", false
	}
	return ps.ValueString(), ss.ValueString(), true
}

// planRestore checks, reading only, the archive a new workspace will be
// restored from: it must be there with the planned sha256 and every member
// must be safe to extract.
func planRestore(ctx context.Context, eng *workspace.Engine, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, plan workspaceModel) {
	p, sum, ok := restoreSource(plan.RestoreFrom)
	if !ok || !req.State.Raw.IsNull() && !plan.ID.IsUnknown() {
		return
	}
	if err := eng.CheckArchive(ctx, p, sum); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("restore_from"), "Cannot restore from the archive", err.Error())
	}
}

// restoreWorkspace hydrates the just-created w from restore_from; on
// failure it removes w again, so nothing of the failed creation stays.
func (r *workspaceResource) restoreWorkspace(ctx context.Context, w *workspace.Workspace, m workspaceModel, diags *diag.Diagnostics) bool {
	p, sum, ok := restoreSource(m.RestoreFrom)
	if !ok {
		return true
	}
	if _, err := w.Restore(ctx, p, sum); err != nil {
		diags.AddAttributeError(path.Root("restore_from"), "Restoring the workspace failed", err.Error())
		if derr := r.eng.Destroy(ctx, w.ID, false); derr != nil {
			diags.AddWarning("The new workspace was not removed", fmt.Sprintf("%s: %v", w.ID, derr))
		}
		return false
	}
	return true
}
