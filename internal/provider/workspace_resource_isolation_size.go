package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// sameSizeKeepsState keeps the prior value of a size attribute in the plan
// when the configuration spells the same byte count differently ("64m"
// and "65536k"), so a respelling is no change.
type sameSizeKeepsState struct{}

func (sameSizeKeepsState) Description(context.Context) string {
	return "a size spelled differently but of the same byte count keeps its prior value"
}

func (m sameSizeKeepsState) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (sameSizeKeepsState) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.StateValue.IsNull() || req.StateValue.IsUnknown() || req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() ||
		req.StateValue.Equal(req.ConfigValue) {
		return
	}
	have, err1 := sizeBytes(req.StateValue.ValueString())
	want, err2 := sizeBytes(req.ConfigValue.ValueString())
	if err1 == nil && err2 == nil && have == want {
		resp.PlanValue = req.StateValue
	}
}

// sizeBytes is the byte count of a size attribute; "-1" (memory_swap's
// unlimited) is -1.
func sizeBytes(s string) (int64, error) {
	if s == "-1" {
		return -1, nil
	}
	return workspace.ParseDockerSize(s)
}

// planKeepsEndpoints keeps endpoints known when the plan, once its
// respelled sizes kept their prior values, changes nothing: the framework
// marks computed attributes unknown before the plan modifiers run.
func planKeepsEndpoints(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || resp.Plan.Raw.IsNull() {
		return
	}
	var planned, prior types.List
	resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root("endpoints"), &planned)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("endpoints"), &prior)...)
	if resp.Diagnostics.HasError() || !planned.IsUnknown() || prior.IsUnknown() {
		return
	}
	trial := tfsdk.Plan{Schema: resp.Plan.Schema, Raw: resp.Plan.Raw.Copy()}
	if trial.SetAttribute(ctx, path.Root("endpoints"), prior).HasError() || !trial.Raw.Equal(req.State.Raw) {
		return
	}
	resp.Plan = trial
}
