package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// localUserValidator refuses `user` on a command against a local workspace
// as soon as the workspace id is known (at plan of a workspace that
// exists): a local workspace runs commands as the provider's own user and
// cannot switch users, which the apply used to be the first to say.
type localUserValidator struct{}

var (
	_ resource.ConfigValidator   = localUserValidator{}
	_ datasource.ConfigValidator = localUserValidator{}
	_ ephemeral.ConfigValidator  = localUserValidator{}
)

func (localUserValidator) Description(context.Context) string {
	return "user is refused on a local workspace"
}

func (v localUserValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (localUserValidator) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	checkLocalUser(ctx, req.Config, &resp.Diagnostics)
}

func (localUserValidator) ValidateDataSource(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	checkLocalUser(ctx, req.Config, &resp.Diagnostics)
}

func (localUserValidator) ValidateEphemeralResource(ctx context.Context, req ephemeral.ValidateConfigRequest, resp *ephemeral.ValidateConfigResponse) {
	checkLocalUser(ctx, req.Config, &resp.Diagnostics)
}

func checkLocalUser(ctx context.Context, cfg tfsdk.Config, diags *diag.Diagnostics) {
	var id, user types.String
	diags.Append(cfg.GetAttribute(ctx, path.Root("workspace_id"), &id)...)
	diags.Append(cfg.GetAttribute(ctx, path.Root("user"), &user)...)
	if diags.HasError() || id.IsNull() || id.IsUnknown() || user.IsNull() || user.IsUnknown() {
		return
	}
	if ref, err := workspace.ParseID(id.ValueString()); err != nil || ref.Kind != "local" {
		return
	}
	diags.AddAttributeError(path.Root("user"), "A local workspace cannot run commands as another user",
		"user = \""+user.ValueString()+"\", but "+id.ValueString()+" is a local workspace: its commands run as the "+
			"user the provider runs as, which cannot switch users. Remove user, or use a docker or kubernetes workspace.")
}

var _ resource.ResourceWithModifyPlan = (*commandResource)(nil)

// ModifyPlan checks, at plan time, that a new or changed `user` names an
// account of the (existing) workspace; see checkUserName.
func (r *commandResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var id, user, prior types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("workspace_id"), &id)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("user"), &user)...)
	if !req.State.Raw.IsNull() {
		var priorID types.String
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("user"), &prior)...)
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("workspace_id"), &priorID)...)
		if prior.Equal(user) && priorID.Equal(id) {
			return
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	checkUserName(ctx, r.eng, id, user, path.Root("user"), &resp.Diagnostics)
}
