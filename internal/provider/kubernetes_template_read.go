package provider

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// templateModel is the state of a SandboxTemplate read back as t. What
// reads the same as prior keeps prior's spelling: a quantity of the same
// amount ("0.5" for "500m"), an empty map or block for none.
func templateModel(t spec.KubernetesTemplate, prior kubeTemplateModel) *kubeTemplateModel {
	str := func(s string) types.String {
		if s == "" {
			return types.StringNull()
		}
		return types.StringValue(s)
	}
	m := &kubeTemplateModel{
		ID:   types.StringValue(workspace.KubernetesObjectID(t.Pod.Namespace, t.Name)),
		Name: types.StringValue(t.Name), Namespace: types.StringValue(t.Pod.Namespace),
		Image: types.StringValue(t.Pod.Image), ImagePullPolicy: str(t.Pod.ImagePullPolicy),
		Labels: mapOrPrior(t.Pod.Labels, prior.Labels), ServiceAccount: str(t.Pod.ServiceAccount),
		NodeSelector: mapOrPrior(t.Pod.NodeSelector, prior.NodeSelector), RuntimeClassName: str(t.Pod.RuntimeClassName),
		Privileged: types.BoolValue(t.Pod.Privileged), Root: types.StringValue(t.Pod.Root),
		Environment:          mapOrPrior(t.Pod.Environment, prior.Environment),
		ManagedNetworkPolicy: types.BoolValue(t.ManagedNetworkPolicy),
	}
	var oldReq, oldLim types.Map
	if !prior.Resources.IsNull() && !prior.Resources.IsUnknown() {
		oldReq, _ = prior.Resources.Attributes()["requests"].(types.Map)
		oldLim, _ = prior.Resources.Attributes()["limits"].(types.Map)
	}
	m.Resources = types.ObjectNull(kubeResourcesAttrTypes)
	if len(t.Pod.Requests)+len(t.Pod.Limits) > 0 || (!prior.Resources.IsNull() && !prior.Resources.IsUnknown() &&
		len(oldReq.Elements())+len(oldLim.Elements()) == 0) {
		m.Resources = types.ObjectValueMust(kubeResourcesAttrTypes, map[string]attr.Value{
			"requests": quantityMap(t.Pod.Requests, oldReq), "limits": quantityMap(t.Pod.Limits, oldLim),
		})
	}
	m.VolumeClaimTemplate = types.ObjectNull(volumeClaimAttrTypes)
	if v := t.RootVolume; v != nil {
		size := v.Size
		if !prior.VolumeClaimTemplate.IsNull() && !prior.VolumeClaimTemplate.IsUnknown() {
			if old, ok := prior.VolumeClaimTemplate.Attributes()["size"].(types.String); ok && workspace.SameQuantity(old.ValueString(), size) {
				size = old.ValueString()
			}
		}
		m.VolumeClaimTemplate = types.ObjectValueMust(volumeClaimAttrTypes, map[string]attr.Value{
			"size": types.StringValue(size), "storage_class_name": str(v.StorageClassName),
		})
	}
	return m
}

// mapOrPrior is m as a map value; an empty m keeps prior when prior is an
// empty map (so `{}` in the configuration does not read back as null).
func mapOrPrior(m map[string]string, prior types.Map) types.Map {
	if len(m) == 0 && !prior.IsNull() && !prior.IsUnknown() && len(prior.Elements()) == 0 {
		return prior
	}
	v, _ := stringMapValue(m).(types.Map)
	return v
}

// quantityMap is the quantities read as a map value; each keeps prior's
// spelling when it is the same amount. None read keeps an empty prior.
func quantityMap(read map[string]string, prior types.Map) types.Map {
	if len(read) == 0 {
		return mapOrPrior(nil, prior)
	}
	old := map[string]string{}
	if !prior.IsNull() && !prior.IsUnknown() {
		for k, v := range prior.Elements() {
			if s, ok := v.(types.String); ok {
				old[k] = s.ValueString()
			}
		}
	}
	vals := map[string]attr.Value{}
	for k, v := range read {
		if o, ok := old[k]; ok && workspace.SameQuantity(o, v) {
			v = o
		}
		vals[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, vals)
}
