package provider

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var grantAttrTypes = map[string]attr.Type{
	"path": types.StringType, "read_only": types.BoolType, "description": types.StringType, "host_path": types.StringType,
}

var grantsPath = path.Root("extra_path_grants")

const grantsReplaceDesc = "Changing them replaces a docker or kubernetes workspace and updates a local one in place."

// grantsAttribute is sandbox_workspace.extra_path_grants, the manifest's
// path grants.
func grantsAttribute() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Optional: true,
		MarkdownDescription: "Paths outside the root granted to the workspace (the Python SDK's manifest `extra_path_grants`). " +
			"On a docker workspace a grant with `host_path` is a bind mount; local and kubernetes workspaces refuse `host_path`. The Python " +
			"SDK's checks fail the plan. " + grantsReplaceDesc + " [Details](#host-path-grants).",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"path": schema.StringAttribute{Required: true, MarkdownDescription: "POSIX-absolute path inside the workspace's " +
				"machine, not `/` (normalised: `/data/` is `/data`)."},
			"read_only": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Mount `host_path` read-only: writes fail with `Read-only file system`. Default `false`."},
			"description": schema.StringAttribute{Optional: true, MarkdownDescription: "Free text."},
			"host_path": schema.StringAttribute{Optional: true, MarkdownDescription: "Absolute directory or file on the Docker " +
				"daemon's host bind-mounted at `path`; no `..`, not `/`. A missing one fails the apply."},
		}},
		PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplaceIf(replaceIfGrantsDiffer, grantsReplaceDesc, grantsReplaceDesc)},
	}
}

// workspaceGrants validates the known grants of list with the Python SDK's
// rules (errors on the field at fault); idx[i] is the list index of
// grants[i], complete is false when an element is unknown.
func workspaceGrants(ctx context.Context, list types.List, diags *diag.Diagnostics) (grants []posix.PathGrant, idx []int, complete bool) {
	if list.IsUnknown() {
		return nil, nil, false
	}
	var models []grantModel
	diags.Append(list.ElementsAs(ctx, &models, false)...)
	complete = true
	for i, g := range models {
		if g.Path.IsUnknown() || g.HostPath.IsUnknown() || g.ReadOnly.IsUnknown() || g.Description.IsUnknown() {
			complete = false
			continue
		}
		grant, err := grantFromModel(g)
		if err != nil {
			field := "path"
			if grantErrorPath(i, err).Equal(grantsPath.AtListIndex(i).AtName("host_path")) {
				field = "host_path"
			}
			diags.AddAttributeError(grantErrorPath(i, err), "Invalid extra path grant",
				fmt.Sprintf("extra_path_grants[%d].%s: %s", i, field, err.Error()))
			complete = false
			continue
		}
		grants = append(grants, grant)
		idx = append(idx, i)
	}
	return grants, idx, complete
}

// addGrantError reports a *spec.GrantError or
// *spec.MissingHostPathError on the grant's field; it reports whether
// err was one.
func addGrantError(diags *diag.Diagnostics, err error, idx []int) bool {
	var ge *spec.GrantError
	var missing *spec.MissingHostPathError
	// Terraform shows the resource, not the element, for an error on an
	// element of a nested list: the message names it.
	at := func(i int, field string) (path.Path, string) {
		return grantsPath.AtListIndex(i).AtName(field), fmt.Sprintf("extra_path_grants[%d].%s: ", i, field)
	}
	switch {
	case errors.As(err, &ge) && ge.Index < len(idx):
		p, name := at(idx[ge.Index], ge.Field)
		diags.AddAttributeError(p, "Unusable extra path grant", name+ge.Reason)
	case errors.As(err, &missing) && missing.Index < len(idx):
		p, name := at(idx[missing.Index], "host_path")
		diags.AddAttributeError(p, "Host path not found", name+err.Error())
	default:
		return false
	}
	return true
}

// validateLocalGrants checks the grants of a local workspace at plan time.
func validateLocalGrants(ctx context.Context, m workspaceModel, diags *diag.Diagnostics) {
	grants, idx, _ := workspaceGrants(ctx, m.ExtraPathGrants, diags)
	addGrantError(diags, workspace.CheckLocalGrants(grants), idx)
}

// validateDockerGrants checks the grants of a docker workspace whose root
// is root ("" when unknown) against the root, its volumes and tmpfs
// mounts at plan time.
func validateDockerGrants(ctx context.Context, m workspaceModel, d dockerModel, root string, diags *diag.Diagnostics) {
	grants, idx, _ := workspaceGrants(ctx, m.ExtraPathGrants, diags)
	if len(grants) == 0 || d.Volumes.IsUnknown() || d.Tmpfs.IsUnknown() {
		return
	}
	var local diag.Diagnostics
	var vols []spec.VolumeMount
	if !d.Volumes.IsNull() && root != "" {
		vols, _, _ = volumeMounts(ctx, d.Volumes, root, &local)
	}
	var tmpfs map[string]string
	local.Append(d.Tmpfs.ElementsAs(ctx, &tmpfs, false)...)
	addGrantError(diags, workspace.CheckDockerGrants(root, grants, vols, tmpfs), idx)
}

// grantsList is the extra_path_grants attribute of grants read back.
func grantsList(grants []posix.PathGrant) types.List {
	return objectList(grantAttrTypes, grants, func(g posix.PathGrant) map[string]attr.Value {
		return map[string]attr.Value{
			"path": types.StringValue(g.Path), "read_only": types.BoolValue(g.ReadOnly),
			"description": types.StringPointerValue(g.Description), "host_path": types.StringPointerValue(g.HostPath),
		}
	})
}

// sameGrants compares grants by their normalised form, in order, but not
// their descriptions: a description changes nothing in the workspace.
func sameGrants(a, b []posix.PathGrant) bool {
	return slices.EqualFunc(a, b, func(x, y posix.PathGrant) bool {
		return x.Path == y.Path && x.ReadOnly == y.ReadOnly && ptrEq(x.HostPath, y.HostPath)
	})
}

func ptrEq(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// refreshGrants sets m's grants to what the container has (info) when the
// two differ, so the plan shows the drift.
func refreshGrants(ctx context.Context, m *workspaceModel, info spec.DockerInfo) {
	var local diag.Diagnostics
	have, _, _ := workspaceGrants(ctx, m.ExtraPathGrants, &local)
	if local.HasError() || sameGrants(have, info.Grants) {
		return
	}
	m.ExtraPathGrants = grantsList(info.Grants)
}

// replaceIfGrantsDiffer replaces a docker workspace when its grants
// change; the same grant spelt another way, or another description, is no
// change.
func replaceIfGrantsDiffer(ctx context.Context, req planmodifier.ListRequest, resp *listplanmodifier.RequiresReplaceIfFuncResponse) {
	if !fixedAtCreation(ctx, req.Config) {
		return
	}
	var diags diag.Diagnostics
	before, _, okBefore := workspaceGrants(ctx, req.StateValue, &diags)
	after, _, okAfter := workspaceGrants(ctx, req.PlanValue, &diags)
	resp.RequiresReplace = diags.HasError() || !okBefore || !okAfter || !sameGrants(before, after)
}
