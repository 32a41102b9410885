package provider

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
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
	return spec.ParseDockerSize(s)
}

// planKeepsEndpoints keeps endpoints known when the workspace keeps its
// ports: an update in place (a container's limits, a local
// workspace's environment) that neither replaces nor starts it, with the
// same exposed_ports and networks. The framework marks every computed attribute unknown
// on an update before the plan modifiers run, which showed endpoints as
// "known after apply" though the apply cannot change them.
func planKeepsEndpoints(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || resp.Plan.Raw.IsNull() || len(resp.RequiresReplace) > 0 {
		return
	}
	var planned, prior, plannedPorts, priorPorts types.List
	var running, wasRunning types.Bool
	resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root("endpoints"), &planned)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("endpoints"), &prior)...)
	resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root("exposed_ports"), &plannedPorts)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("exposed_ports"), &priorPorts)...)
	resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root("running"), &running)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("running"), &wasRunning)...)
	if resp.Diagnostics.HasError() || !planned.IsUnknown() || prior.IsUnknown() ||
		!plannedPorts.Equal(priorPorts) || !running.Equal(wasRunning) {
		return
	}
	// Connecting or disconnecting a network republishes a container's
	// ports on new host ports.
	var networks, priorNetworks types.List
	if d := resp.Plan.GetAttribute(ctx, networksPath, &networks); d.HasError() {
		return
	}
	if d := req.State.GetAttribute(ctx, networksPath, &priorNetworks); d.HasError() || !networks.Equal(priorNetworks) {
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("endpoints"), prior)...)
}
