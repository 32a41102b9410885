package provider

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"
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
		Computed: true,
		MarkdownDescription: "User name (of `users`, `root`, or of the image) or numeric uid to `chown` the " + noun +
			" to, before the chmod; without `group`, the user's primary group too. Unset: a new " + noun + " takes the " +
			"workspace root's owner (`root_owner`), one in state keeps its owner; `\"root\"` opts out. See the entries " +
			"guide. A local workspace allows only the provider's own user unless it runs as root.",
		Validators: []validator.String{ownerRefValidator},
	}
}

// ownerDefaultKey holds, in private state, the owner an entry took because
// none was configured, so that a change made to it out of band is given
// back as for a configured owner.
const ownerDefaultKey = "owner_default"

// planOwner plans the owner of an entry whose configuration has none (set
// is false when one is configured): a new entry takes its workspace's
// DefaultEntryOwner, unknown until the apply when the workspace is new or
// cannot be looked into; an entry already in state keeps the owner it took
// by default, else the one it has (an entry from before owners defaulted
// has none: it is not chowned and shows no change).
func planOwner(ctx context.Context, eng *workspace.Engine, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) (owner types.String, set bool) {
	var cfg types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("owner"), &cfg)...)
	if !cfg.IsNull() || resp.Diagnostics.HasError() {
		return cfg, false
	}
	owner = types.StringUnknown()
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("owner"), &owner)...)
		if d := defaultOwnerOf(ctx, req.Private); d != "" {
			owner = types.StringValue(d)
		}
		return owner, true
	}
	var id types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("workspace_id"), &id)...)
	if id.IsUnknown() || id.IsNull() || !workspace.ValidID(id.ValueString()) {
		return owner, true
	}
	if ws, err := eng.Open(ctx, id.ValueString()); err == nil {
		if o, err := ws.DefaultEntryOwner(ctx); err == nil {
			owner = ownerValue(o)
		}
	}
	return owner, true
}

// ownerValue is the state value of an engine owner ("" for none).
func ownerValue(o string) types.String {
	if o == "" {
		return types.StringNull()
	}
	return types.StringValue(o)
}

// defaultOwnerOf returns the owner recorded under ownerDefaultKey, or "".
func defaultOwnerOf(ctx context.Context, p privateGetter) string {
	if p == nil {
		return ""
	}
	b, diags := p.GetKey(ctx, ownerDefaultKey)
	var o string
	if diags.HasError() || len(b) == 0 || json.Unmarshal(b, &o) != nil {
		return ""
	}
	return o
}

// applyDefaultOwner, at apply, gives an entry planned with an owner not
// known yet its workspace's DefaultEntryOwner, and records in private state
// the owner it took by default (cfg has none), or that it has none to keep.
func applyDefaultOwner(ctx context.Context, ws *workspace.Workspace, e, cfg *entryModel, p privateSetter, diags *diag.Diagnostics) {
	if e.Owner.IsUnknown() {
		o, err := ws.DefaultEntryOwner(ctx)
		if err != nil {
			addEngineAttributeError(diags, path.Root("owner"), "Cannot find the default owner", err)
			return
		}
		e.Owner = ownerValue(o)
	}
	var rec []byte
	if cfg.Owner.IsNull() && !e.Owner.IsNull() {
		rec, _ = json.Marshal(e.Owner.ValueString())
	}
	diags.Append(p.SetKey(ctx, ownerDefaultKey, rec)...)
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

// checkOwnerName refuses, at plan time, a configured owner the existing
// workspace has no account for, when it is new or changed (see
// checkUserName).
func checkOwnerName(ctx context.Context, eng *workspace.Engine, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var owner, id types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("owner"), &owner)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("workspace_id"), &id)...)
	if !req.State.Raw.IsNull() {
		var prior, priorID types.String
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("owner"), &prior)...)
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("workspace_id"), &priorID)...)
		if prior.Equal(owner) && priorID.Equal(id) {
			return
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	checkUserName(ctx, eng, id, owner, path.Root("owner"), &resp.Diagnostics)
}
