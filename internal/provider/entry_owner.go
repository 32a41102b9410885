package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// ownerAttribute is the `owner` of an entry resource: this provider's
// addition to the Python SDK's entry metadata, which has a group but no owner.
func ownerAttribute(noun string) schema.StringAttribute {
	return schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "User name (one of the workspace's `users`, `root`, or any user of the image) or numeric uid to `chown` the " +
			noun + " to, with the group and before the chmod. Unset leaves the owner alone. A local workspace accepts only the " +
			"provider's own user unless the provider runs as root. Not part of `manifest_entry`: the Python SDK has no owner.",
		Validators: []validator.String{ownerRefValidator},
	}
}

// observeID is the group or owner to record for an entry whose configured
// value is cur, when the workspace shows name (numeric id) on the entry
// and below names the id of something below it that differs (a copied
// tree). An unset value stays unset; a value naming what is there, by
// name or by id, stays as configured.
func observeID(cur types.String, name string, id int, below string) types.String {
	if cur.IsNull() || cur.IsUnknown() {
		return cur
	}
	seen := workspace.SameOwner(cur.ValueString(), name, id)
	if seen == cur.ValueString() && below != "" {
		seen = below
	}
	return types.StringValue(seen)
}

// checkOwner refuses, at plan time, an owner the entry's workspace cannot
// give its files to (a local workspace of a provider not running as root).
func checkOwner(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var owner, id types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("owner"), &owner)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("workspace_id"), &id)...)
	if owner.IsNull() || owner.IsUnknown() || id.IsUnknown() || resp.Diagnostics.HasError() {
		return
	}
	if err := workspace.CheckOwner(id.ValueString(), owner.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("owner"), "Owner not possible in a local workspace", err.Error())
	}
}
