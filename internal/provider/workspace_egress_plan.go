package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// planEgress plans egress.resolved: with no host rule it is empty; on an
// existing workspace the hosts are resolved again now (reading DNS only),
// so that a name whose addresses changed plans an update that enforces
// the new ones. A new workspace's hosts are resolved at apply.
func planEgress(ctx context.Context, eng *workspace.Engine, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, plan workspaceModel) {
	if plan.Egress.IsNull() || plan.Egress.IsUnknown() {
		return
	}
	planEgressContainer(ctx, eng, req, resp, plan)
	var d diag.Diagnostics
	p, _ := egressPolicy(ctx, plan.Egress, &d)
	if d.HasError() || p.Validate() != nil {
		return
	}
	at := path.Root("egress").AtName("resolved")
	if !p.HasHosts() {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, at, resolvedValue(nil))...)
		return
	}
	if req.State.Raw.IsNull() {
		return
	}
	resolved, err := workspace.ResolveEgress(ctx, p)
	if err != nil {
		resp.Diagnostics.AddAttributeWarning(path.Root("egress"), "Egress hosts did not resolve at plan", err.Error()+
			"; the apply resolves them again and fails if they still do not.")
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, at, types.MapUnknown(types.ListType{ElemType: types.StringType}))...)
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, at, resolvedValue(resolved))...)
}

// planEgressContainer replaces a pod workspace that gets an egress policy
// but was created without the container that programs it (a pod's
// containers are fixed at creation). A pod that has it (its policy was
// removed, or its rules were removed out of band) is updated in place. It
// only reads the pod.
func planEgressContainer(ctx context.Context, eng *workspace.Engine, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, plan workspaceModel) {
	if req.State.Raw.IsNull() || plan.Kubernetes.IsNull() || eng == nil {
		return
	}
	var prior types.Object
	if resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("egress"), &prior)...); !prior.IsNull() {
		return
	}
	var id types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &id)...)
	can := false
	if w, err := eng.Open(ctx, id.ValueString()); err == nil {
		can, _ = eng.CanEnforceEgress(ctx, w)
	}
	if !can {
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("egress"))
	}
}
