package provider

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// The data source's kubernetes attribute: a lookup key for a pod
// workspace, and what is read of one however it was found.
var kubernetesLookupAttrTypes = map[string]attr.Type{
	"namespace": types.StringType, "pod_name": types.StringType, "labels": types.MapType{ElemType: types.StringType},
}

type kubernetesLookupModel struct {
	Namespace types.String `tfsdk:"namespace"`
	PodName   types.String `tfsdk:"pod_name"`
	Labels    types.Map    `tfsdk:"labels"`
}

func kubernetesLookupSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true, Computed: true,
		MarkdownDescription: "A kubernetes workspace's pod: as a lookup key, its `namespace` with its `pod_name` or with " +
			"`labels` that exactly one workspace pod there carries. Filled in for every kubernetes workspace; null otherwise.",
		Attributes: map[string]schema.Attribute{
			"namespace": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "Namespace of the pod. Required in a lookup."},
			"pod_name":  schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "Name of the pod, `sandbox-<uuid>`."},
			"labels": schema.MapAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Pod labels that exactly one workspace pod in the namespace carries."},
		},
	}
}

// find: the data source reaches a pod workspace by namespace and pod name
// or labels.
func (kubernetesKind) find(ctx context.Context, eng *workspace.Engine, m workspaceDataModel, diags *diag.Diagnostics) (*workspace.Workspace, path.Path, bool, error) {
	if m.Kubernetes.IsNull() || m.Kubernetes.IsUnknown() {
		return nil, path.Empty(), false, nil
	}
	var k kubernetesLookupModel
	diags.Append(m.Kubernetes.As(ctx, &k, basetypes.ObjectAsOptions{})...)
	at := path.Root("kubernetes")
	if k.Namespace.IsNull() {
		diags.AddAttributeError(at.AtName("namespace"), "Missing namespace", "a kubernetes lookup needs the pod's namespace.")
		return nil, at, true, nil
	}
	if k.PodName.IsNull() && k.Labels.IsNull() {
		diags.AddAttributeError(at, "Missing pod_name or labels", "a kubernetes lookup needs the pod's pod_name, or labels that single it out.")
		return nil, at, true, nil
	}
	labels := map[string]string{}
	if !k.Labels.IsNull() {
		diags.Append(k.Labels.ElementsAs(ctx, &labels, false)...)
	}
	if diags.HasError() {
		return nil, at, true, nil
	}
	if err := workspace.CheckKubernetesLookup(k.Namespace.ValueString(), k.PodName.ValueString(), labels); err != nil {
		var fe *spec.KubernetesFieldError
		field := at
		if errors.As(err, &fe) {
			field = at.AtName(fe.Field)
		}
		diags.AddAttributeError(field, "Invalid kubernetes lookup", err.Error()+".")
		return nil, at, true, nil
	}
	w, err := eng.FindKubernetes(ctx, k.Namespace.ValueString(), k.PodName.ValueString(), labels)
	return w, at, true, err
}

// kubernetesLookupValue is the attribute after a read: the pod of a
// kubernetes workspace (labels as looked up by), else null.
func kubernetesLookupValue(w *workspace.Workspace, looked types.Object) types.Object {
	if w.Kind != "kubernetes" {
		return types.ObjectNull(kubernetesLookupAttrTypes)
	}
	labels := types.MapNull(types.StringType)
	if !looked.IsNull() && !looked.IsUnknown() {
		if l, ok := looked.Attributes()["labels"].(types.Map); ok && !l.IsUnknown() {
			labels = l
		}
	}
	return types.ObjectValueMust(kubernetesLookupAttrTypes, map[string]attr.Value{
		"namespace": types.StringValue(workspace.PodNamespace(w)), "pod_name": types.StringValue(workspace.PodName(w)), "labels": labels,
	})
}
