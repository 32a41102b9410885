package provider

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// networkingModel is the network part of the docker block.
type networkingModel struct {
	Networks   types.List `tfsdk:"networks"`
	ExtraHosts types.Map  `tfsdk:"extra_hosts"`
	DNS        types.List `tfsdk:"dns"`
}

// networkModel is one element of docker.networks.
type networkModel struct {
	Name    types.String `tfsdk:"name"`
	Aliases types.Set    `tfsdk:"aliases"`
}

var networkAttrTypes = map[string]attr.Type{"name": types.StringType, "aliases": types.SetType{ElemType: types.StringType}}

var networksPath = dockerPath.AtName("networks")

// networkingAttributes are the docker block's network attributes.
func networkingAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"networks": schema.ListNestedAttribute{
			Optional: true,
			MarkdownDescription: "Existing Docker networks the container joins, such as `[{ name = \"evalnet\", aliases = " +
				"[\"agent\"] }]`; the provider never creates or removes a network, and a missing one fails the apply. Without " +
				"`network_mode` the container is on these networks only. Refused with `network_mode = \"none\"`. Changed in " +
				"place (`docker network connect`, `disconnect`). [Details](#networks).",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"name": schema.StringAttribute{Required: true, MarkdownDescription: "Name of the network (`docker network ls`).",
					Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
				"aliases": schema.SetAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Host names " +
					"other containers on the network reach the workspace by (user-defined networks only)."},
			}},
		},
		"extra_hosts": schema.MapAttribute{
			Optional:    true,
			ElementType: types.StringType,
			MarkdownDescription: "Entries added to the container's `/etc/hosts`, host name to IP address or `\"host-gateway\"` " +
				"(`{ \"db.internal\" = \"10.0.0.5\" }`), as `docker run --add-host`; a value that is not an IP address fails " +
				"the plan. " + replaceDesc,
			PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplaceIf(replaceMapIfChanged, replaceDesc, replaceDesc)},
		},
		"dns": schema.ListAttribute{
			Optional:            true,
			ElementType:         types.StringType,
			MarkdownDescription: "DNS servers of the container, IP addresses in order (`[\"10.0.0.2\"]`), written to `/etc/resolv.conf`. " + replaceDesc,
			PlanModifiers:       []planmodifier.List{listplanmodifier.RequiresReplace()},
		},
	}
}

// networking converts the model; unknown values make complete false.
func (nm networkingModel) networking(ctx context.Context, diags *diag.Diagnostics) (n spec.DockerNetworking, complete bool) {
	complete = !nm.Networks.IsUnknown() && !nm.ExtraHosts.IsUnknown() && !nm.DNS.IsUnknown()
	var nws []networkModel
	diags.Append(nm.Networks.ElementsAs(ctx, &nws, false)...)
	for _, nw := range nws {
		if nw.Name.IsUnknown() || nw.Aliases.IsUnknown() {
			complete = false
			continue
		}
		d := spec.DockerNetwork{Name: nw.Name.ValueString()}
		diags.Append(nw.Aliases.ElementsAs(ctx, &d.Aliases, false)...)
		slices.Sort(d.Aliases)
		n.Networks = append(n.Networks, d)
	}
	diags.Append(nm.ExtraHosts.ElementsAs(ctx, &n.ExtraHosts, false)...)
	diags.Append(nm.DNS.ElementsAs(ctx, &n.DNS, false)...)
	return n, complete
}

// validateNetworking checks the network attributes at plan time.
func validateNetworking(ctx context.Context, d dockerModel, diags *diag.Diagnostics) {
	var local diag.Diagnostics
	n, complete := d.networking(ctx, &local)
	diags.Append(local...)
	if local.HasError() || !complete || d.NetworkMode.IsUnknown() {
		return
	}
	addIsolationError(diags, "Unusable network setting", workspace.CheckDockerNetworking(d.NetworkMode.ValueString(), n))
}

// networksValue is the networks attribute of a setting read back.
func networksValue(nws []spec.DockerNetwork) attr.Value {
	return objectList(networkAttrTypes, nws, func(nw spec.DockerNetwork) map[string]attr.Value {
		return map[string]attr.Value{"name": types.StringValue(nw.Name), "aliases": stringsValue(nw.Aliases, true)}
	})
}

// networkingValues are the network attributes of an imported container.
func networkingValues(n spec.DockerNetworking) map[string]attr.Value {
	return map[string]attr.Value{
		"networks": networksValue(n.Networks), "extra_hosts": stringMapValue(n.ExtraHosts), "dns": stringsValue(n.DNS, false),
	}
}

// sameNetworks compares networks by name and aliases, in any order.
func sameNetworks(a, b []spec.DockerNetwork) bool {
	key := func(l []spec.DockerNetwork) []string {
		var out []string
		for _, n := range l {
			out = append(out, n.Name+"\x00"+joinSorted(n.Aliases))
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(key(a), key(b))
}

func joinSorted(l []string) string {
	s := ""
	for _, v := range slices.Compact(slices.Sorted(slices.Values(l))) {
		s += v + "\x00"
	}
	return s
}

// refreshNetworking sets, in the docker block of state, each network
// attribute on which the container (info) disagrees to what it has, so the
// plan shows the drift; attributes that agree keep their spelling.
func refreshNetworking(ctx context.Context, block types.Object, info spec.DockerInfo, diags *diag.Diagnostics) types.Object {
	return patchDocker(ctx, block, diags, func(d dockerModel, set func(string, attr.Value)) {
		have, _ := d.networking(ctx, &diag.Diagnostics{})
		got, fresh := info.Networking, networkingValues(info.Networking)
		for name, same := range map[string]bool{
			"networks":    sameNetworks(have.Networks, got.Networks),
			"extra_hosts": maps.Equal(have.ExtraHosts, got.ExtraHosts),
			"dns":         slices.Equal(have.DNS, got.DNS),
		} {
			if !same {
				set(name, fresh[name])
			}
		}
	})
}

// patchDocker returns the docker block with the attributes fix sets
// replaced, or block itself when fix sets none (or block does not read).
func patchDocker(ctx context.Context, block types.Object, diags *diag.Diagnostics, fix func(d dockerModel, set func(string, attr.Value))) types.Object {
	var d dockerModel
	if block.As(ctx, &d, basetypes.ObjectAsOptions{}).HasError() {
		return block
	}
	vals := maps.Clone(block.Attributes())
	changed := false
	fix(d, func(name string, v attr.Value) { vals[name], changed = v, true })
	if !changed {
		return block
	}
	obj, dd := types.ObjectValue(dockerAttrTypes, vals)
	diags.Append(dd...)
	return obj
}

// objectList is a list of objects of attrTypes, one per item, or a null
// list when there is none.
func objectList[T any](attrTypes map[string]attr.Type, items []T, values func(T) map[string]attr.Value) types.List {
	elem := types.ObjectType{AttrTypes: attrTypes}
	if len(items) == 0 {
		return types.ListNull(elem)
	}
	objs := make([]attr.Value, 0, len(items))
	for _, it := range items {
		objs = append(objs, types.ObjectValueMust(attrTypes, values(it)))
	}
	return types.ListValueMust(elem, objs)
}

// updateNetworks connects and disconnects the running container when the
// planned networks differ from state's.
func updateNetworks(ctx context.Context, eng *workspace.Engine, req resource.UpdateRequest, w *workspace.Workspace, diags *diag.Diagnostics) {
	sd, pd, ok := dockerBlocks(ctx, req, diags)
	if !ok {
		return
	}
	have, _ := sd.networking(ctx, diags)
	want, _ := pd.networking(ctx, diags)
	if diags.HasError() || sameNetworks(have.Networks, want.Networks) {
		return
	}
	if err := eng.UpdateDockerNetworks(ctx, w, want.Networks); err != nil && !addMissingNetworkError(diags, err) {
		addEngineAttributeError(diags, networksPath, "Updating the container's networks failed", err)
	}
}

// dockerBlocks are the docker block of an update's state and plan; ok is
// false when either has none or they do not read.
func dockerBlocks(ctx context.Context, req resource.UpdateRequest, diags *diag.Diagnostics) (state, plan dockerModel, ok bool) {
	var st, pl types.Object
	diags.Append(req.State.GetAttribute(ctx, dockerPath, &st)...)
	diags.Append(req.Plan.GetAttribute(ctx, dockerPath, &pl)...)
	if diags.HasError() || st.IsNull() || pl.IsNull() {
		return state, plan, false
	}
	diags.Append(st.As(ctx, &state, basetypes.ObjectAsOptions{})...)
	diags.Append(pl.As(ctx, &plan, basetypes.ObjectAsOptions{})...)
	return state, plan, !diags.HasError()
}

// addMissingNetworkError reports a *spec.MissingNetworkError on the
// network's name; it reports whether err was one.
func addMissingNetworkError(diags *diag.Diagnostics, err error) bool {
	var missing *spec.MissingNetworkError
	if !errors.As(err, &missing) {
		return false
	}
	diags.AddAttributeError(networksPath.AtListIndex(missing.Index).AtName("name"), "Network not found",
		fmt.Sprintf("docker.networks[%d].name: %s", missing.Index, err.Error()))
	return true
}
