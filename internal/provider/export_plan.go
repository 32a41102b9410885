package provider

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// privateExportDirsKey holds the directories an export created, the only
// ones its destroy may remove.
const privateExportDirsKey = "export_dirs"

// privateExportOursKey carries, from the plan of a replacement to its
// second plan (of the create, with no prior state), the files the old
// export wrote and its destroy will remove first.
const privateExportOursKey = "export_ours"

func setExportDirs(ctx context.Context, p privateSetter, dirs []string) diag.Diagnostics {
	b, _ := json.Marshal(dirs)
	return p.SetKey(ctx, privateExportDirsKey, b)
}

func exportDirs(ctx context.Context, p privateGetter) ([]string, diag.Diagnostics) {
	b, diags := p.GetKey(ctx, privateExportDirsKey)
	var dirs []string
	if len(b) > 0 {
		_ = json.Unmarshal(b, &dirs)
	}
	return dirs, diags
}

// ModifyPlan replaces an export whose copies are missing or changed on the
// host, and, where the workspace and destination can be read now, refuses
// at plan an export that would meet a host file it did not write. It only
// reads.
func (r *exportResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.eng == nil {
		return
	}
	var plan exportModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	creating := req.State.Raw.IsNull() || !req.Plan.Raw.Equal(req.State.Raw)
	var ours map[string]string
	if req.State.Raw.IsNull() {
		b, diags := req.Private.GetKey(ctx, privateExportOursKey)
		resp.Diagnostics.Append(diags...)
		_ = json.Unmarshal(b, &ours)
	} else {
		var st exportModel
		resp.Diagnostics.Append(req.State.Get(ctx, &st)...)
		if resp.Diagnostics.HasError() {
			return
		}
		files := st.fileMap(ctx, &resp.Diagnostics)
		intact, err := r.eng.ExportState(st.Destination.ValueString(), files)
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("destination"), "Cannot read the exported files", err.Error())
			return
		}
		for _, ok := range intact {
			if !ok {
				// A copy is missing or changed: export again.
				plan.ID, plan.Files = types.StringUnknown(), types.MapUnknown(types.StringType)
				resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
				resp.RequiresReplace = append(resp.RequiresReplace, path.Root("files"))
				creating = true
				break
			}
		}
		if creating && st.Destination.Equal(plan.Destination) {
			ours = files
			b, _ := json.Marshal(ours)
			resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateExportOursKey, b)...)
		}
	}
	if creating {
		r.planConflicts(ctx, plan, ours, &resp.Diagnostics)
	}
}

// planConflicts reports the host files an export would meet, when the
// workspace can be read now; otherwise the apply checks.
func (r *exportResource) planConflicts(ctx context.Context, plan exportModel, ours map[string]string, diags *diag.Diagnostics) {
	if plan.WorkspaceID.IsUnknown() || plan.Destination.IsUnknown() || plan.Paths.IsUnknown() {
		return
	}
	var globs []string
	if plan.Paths.ElementsAs(ctx, &globs, false).HasError() {
		return
	}
	ws, err := r.eng.Open(ctx, plan.WorkspaceID.ValueString())
	if err != nil {
		return
	}
	err = ws.ExportConflicts(ctx, workspace.ExportRequest{Paths: globs, Destination: plan.Destination.ValueString()}, ours)
	var conflict *workspace.ExportConflictError
	if errors.As(err, &conflict) {
		diags.AddAttributeError(path.Root("destination"), "Destination holds files this export did not write", err.Error())
	}
}
