package provider

import (
	"context"
	"errors"
	"io/fs"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// rootOwnerAttribute is sandbox_workspace's `root_owner`.
func rootOwnerAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		Optional: true,
		Computed: true,
		MarkdownDescription: "User name or numeric uid owning the workspace root (the root directory only, with the user's " +
			"primary group), so it can write there; new entries with no `owner` take it. Default: a docker workspace's first " +
			"`users` entry, else `root`; a new local workspace's, the provider's user (the only one allowed unless it runs as " +
			"root). Read back on refresh; drift is given back by the next apply.",
		Validators:    []validator.String{ownerRefValidator},
		PlanModifiers: []planmodifier.String{rootOwnerDefault{}},
	}
}

// rootOwnerDefault plans the default root owner when none is configured,
// and refuses at plan time an owner a local workspace cannot have.
type rootOwnerDefault struct{}

func (rootOwnerDefault) Description(context.Context) string {
	return "defaults to the first user of a docker workspace, else root; on a local workspace, the provider's own user"
}

func (m rootOwnerDefault) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (rootOwnerDefault) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	k := configuredKind(ctx, req.Config)
	if k == nil || req.Plan.Raw.IsNull() {
		return
	}
	switch {
	case req.ConfigValue.IsNull() && k.keepsRootOwner() && !req.StateValue.IsNull():
		// The provider's own user differs between machines: an existing
		// local root keeps the owner it has, and nothing is chowned.
		resp.PlanValue = req.StateValue
		return
	case req.ConfigValue.IsNull():
		var users types.List
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("users"), &users)...)
		if users.IsUnknown() {
			resp.PlanValue = types.StringUnknown()
			return
		}
		var us []userModel
		resp.Diagnostics.Append(users.ElementsAs(ctx, &us, false)...)
		var names []sandbox.User
		for _, u := range us {
			names = append(names, sandbox.User{Name: u.Name.ValueString()})
		}
		resp.PlanValue = types.StringValue(workspace.DefaultRootOwner(k.name(), names))
	}
	if resp.PlanValue.IsUnknown() {
		return
	}
	if !req.ConfigValue.IsNull() && req.StateValue.IsNull() && k.name() != "local" {
		warnRootOwnerOutsideUsers(ctx, req, resp)
	}
	if err := workspace.CheckKindOwner(k.name(), resp.PlanValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Root owner not possible in a local workspace", err.Error())
	}
}

// applyRootOwner gives the root of w to the planned root_owner, unless
// prior (the refreshed state; nil on create) shows it has it already.
func applyRootOwner(ctx context.Context, w *workspace.Workspace, m, prior *workspaceModel, diags *diag.Diagnostics) {
	if m.RootOwner.IsNull() || m.RootOwner.IsUnknown() || (prior != nil && prior.RootOwner.Equal(m.RootOwner)) {
		return
	}
	if err := w.SetRootOwner(ctx, m.RootOwner.ValueString()); err != nil {
		addEngineAttributeError(diags, path.Root("root_owner"), "Setting the root owner failed", err)
	}
}

// readRootOwner records who owns the root of a running workspace, so that
// a change out of band shows in the plan.
func readRootOwner(ctx context.Context, w *workspace.Workspace, m *workspaceModel, diags *diag.Diagnostics) {
	if !w.Running || w.Paused {
		return // nothing can be read in a stopped container: state stays as it was
	}
	owner, err := w.RootOwner(ctx, m.RootOwner.ValueString())
	if errors.Is(err, fs.ErrNotExist) {
		// A root deleted inside the container: the apply re-creates it
		// and gives it back to its owner.
		m.RootOwner = types.StringValue("")
		return
	}
	if err != nil {
		// Gone, or stopped since it was inspected (a container that a
		// restart policy is restarting): state stays as it was.
		if !workspaceGone(err) && !workspaceStopped(err) {
			addEngineAttributeError(diags, path.Root("root_owner"), "Reading the root owner failed", err)
		}
		return
	}
	m.RootOwner = types.StringValue(owner)
}

// warnRootOwnerOutsideUsers warns when a new container's root_owner is
// neither one of its users, nor root, nor numeric: only the image can have
// it, and the image's accounts cannot be read before the container exists.
func warnRootOwnerOutsideUsers(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	owner := req.ConfigValue.ValueString()
	if owner == "root" {
		return
	}
	if _, err := strconv.ParseUint(owner, 10, 31); err == nil {
		return
	}
	var users types.List
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("users"), &users)...)
	if users.IsUnknown() || resp.Diagnostics.HasError() {
		return
	}
	var us []userModel
	resp.Diagnostics.Append(users.ElementsAs(ctx, &us, false)...)
	for _, u := range us {
		if u.Name.ValueString() == owner {
			return
		}
	}
	resp.Diagnostics.AddAttributeWarning(req.Path, "root_owner "+owner+" is not one of users",
		"\""+owner+"\" is neither one of the workspace's users, nor root, nor numeric: only the image can have it, which "+
			"cannot be checked before the container exists; the apply fails if the image has no such account. Add it to "+
			"users, or use a numeric uid.")
}
