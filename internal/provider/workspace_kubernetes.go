package provider

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"errors"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// kubernetesKind is `kubernetes { ... }`: a directory inside a pod on an
// existing cluster.
type kubernetesKind struct{}

type kubernetesBlockModel struct {
	Namespace        types.String `tfsdk:"namespace"`
	Image            types.String `tfsdk:"image"`
	ImagePullPolicy  types.String `tfsdk:"image_pull_policy"`
	Labels           types.Map    `tfsdk:"labels"`
	ServiceAccount   types.String `tfsdk:"service_account"`
	NodeSelector     types.Map    `tfsdk:"node_selector"`
	RuntimeClassName types.String `tfsdk:"runtime_class_name"`
	Resources        types.Object `tfsdk:"resources"`
	Privileged       types.Bool   `tfsdk:"privileged"`
	StartTimeout     types.String `tfsdk:"start_timeout"`
	PodName          types.String `tfsdk:"pod_name"`
}

var (
	kubeResourcesAttrTypes = map[string]attr.Type{
		"requests": types.MapType{ElemType: types.StringType}, "limits": types.MapType{ElemType: types.StringType},
	}
	kubernetesAttrTypes = map[string]attr.Type{
		"namespace": types.StringType, "image": types.StringType, "image_pull_policy": types.StringType,
		"labels": types.MapType{ElemType: types.StringType}, "service_account": types.StringType,
		"node_selector": types.MapType{ElemType: types.StringType}, "runtime_class_name": types.StringType,
		"resources": types.ObjectType{AttrTypes: kubeResourcesAttrTypes}, "privileged": types.BoolType,
		"start_timeout": types.StringType, "pod_name": types.StringType,
	}
)

func (kubernetesKind) name() string                           { return "kubernetes" }
func (kubernetesKind) object(m *workspaceModel) *types.Object { return &m.Kubernetes }
func (kubernetesKind) fixedAtCreation() bool                  { return true }
func (kubernetesKind) defaultRoot() string                    { return workspace.DefaultDockerRoot }
func (kubernetesKind) keepsRootOwner() bool                   { return false }

func (kubernetesKind) block() schema.Block {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	replaceMap := []planmodifier.Map{mapplanmodifier.RequiresReplace()}
	strMap := func(desc string) schema.MapAttribute {
		return schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: desc, PlanModifiers: replaceMap}
	}
	return schema.SingleNestedBlock{
		MarkdownDescription: "Selects the Kubernetes backend: the workspace is a directory on an `emptyDir` volume of a pod on " +
			"the provider's cluster (the provider's `kubernetes` block), kept alive by `tail -f /dev/null`. Every setting is " +
			"fixed at creation: changing one replaces the pod. [Details](#kubernetes-workspaces).",
		PlanModifiers: []planmodifier.Object{replaceWhenAddedOrRemoved{}},
		Attributes: map[string]schema.Attribute{
			"namespace": schema.StringAttribute{Optional: true, PlanModifiers: replace,
				MarkdownDescription: "Namespace of the pod, which must exist. Required in the block."},
			"image": schema.StringAttribute{Optional: true, PlanModifiers: replace,
				MarkdownDescription: "Container image; it needs `sh` and `tail`. Required in the block."},
			"image_pull_policy": schema.StringAttribute{Optional: true, Computed: true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.OneOf("Always", "IfNotPresent", "Never")},
				MarkdownDescription: "`Always`, `IfNotPresent` or `Never`. Default: the cluster's (`Always` for a `:latest` " +
					"or untagged image, else `IfNotPresent`)."},
			"labels":          strMap("Labels added to the pod and its Service."),
			"service_account": schema.StringAttribute{Optional: true, PlanModifiers: replace, MarkdownDescription: "Service account of the pod; its token is not mounted. Default: the namespace's `default`."},
			"node_selector":   strMap("Node labels the pod must be scheduled on."),
			"runtime_class_name": schema.StringAttribute{Optional: true, PlanModifiers: replace,
				MarkdownDescription: "RuntimeClass of the pod, such as `gvisor` or `kata` where the cluster has them."},
			"resources": schema.SingleNestedAttribute{Optional: true,
				PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplace()},
				MarkdownDescription: "The container's `requests` and `limits`: resource name to quantity, " +
					"`{ cpu = \"250m\", memory = \"256Mi\" }`. Quantities compare by amount.",
				Attributes: map[string]schema.Attribute{
					"requests": schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Requested resources."},
					"limits":   schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Resource limits."},
				}},
			"privileged": schema.BoolAttribute{Optional: true,
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplaceIf(replaceBoolIfChanged,
					"Changing it replaces the pod.", "Changing it replaces the pod.")},
				MarkdownDescription: "Run the container privileged, which in-container storage mounts (FUSE) need: it then " +
					"has every capability and the node's devices. Default `false`. [Mounts in pods](#storage-mounts-in-pods)."},
			"start_timeout": schema.StringAttribute{Optional: true,
				MarkdownDescription: "How long creation waits for the pod to run, a duration such as `\"90s\"`. Default `\"3m\"`; " +
					"a pod still Pending or failing to pull its image then fails the apply with its reason and events."},
			"pod_name": schema.StringAttribute{Computed: true, PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
				MarkdownDescription: "Name of the pod and of its Service: `sandbox-<uuid>`."},
		},
	}
}

func kubeBlock(ctx context.Context, o types.Object, diags *diag.Diagnostics) kubernetesBlockModel {
	var b kubernetesBlockModel
	if !o.IsNull() && !o.IsUnknown() {
		diags.Append(o.As(ctx, &b, basetypes.ObjectAsOptions{})...)
	}
	return b
}

func (kubernetesKind) validate(ctx context.Context, m workspaceModel, cfg tfsdk.Config, diags *diag.Diagnostics) {
	at := path.Root("kubernetes")
	b := kubeBlock(ctx, m.Kubernetes, diags)
	for _, name := range []string{"namespace", "image"} {
		v := map[string]types.String{"namespace": b.Namespace, "image": b.Image}[name]
		switch {
		case v.IsNull():
			diags.AddAttributeError(at.AtName(name), "Missing required argument", "a kubernetes block needs "+name+".")
		case !v.IsUnknown() && strings.TrimSpace(v.ValueString()) == "":
			diags.AddAttributeError(at.AtName(name), "Empty "+name, "the kubernetes block's "+name+" must not be empty or blank.")
		}
	}
	checkStartTimeout(at, b.StartTimeout, diags)
	grants, idx, _ := workspaceGrants(ctx, m.ExtraPathGrants, diags)
	addGrantError(diags, workspace.CheckKubernetesGrants(grants), idx)
	var wo types.Map
	diags.Append(cfg.GetAttribute(ctx, path.Root("environment_wo"), &wo)...)
	if !wo.IsNull() {
		diags.AddAttributeError(path.Root("environment_wo"), "environment_wo needs a Docker workspace",
			"kubernetes workspaces take no write-only environment yet. Give secrets to commands with "+
				"sandbox_command.environment_wo, or to files with sandbox_file.content_wo.")
	}
	ks := kubeSpec(ctx, m, b, diags)
	if diags.HasError() || b.Resources.IsUnknown() {
		return
	}
	addKubeSpecError(diags, at, "Invalid kubernetes setting", workspace.CheckKubernetesSpec(ks))
}

// checkStartTimeout refuses a start_timeout of the block at that is not a
// positive duration.
func checkStartTimeout(at path.Path, v types.String, diags *diag.Diagnostics) {
	if v.IsNull() || v.IsUnknown() {
		return
	}
	if d, err := time.ParseDuration(v.ValueString()); err != nil || d <= 0 {
		diags.AddAttributeError(at.AtName("start_timeout"), "Invalid start_timeout",
			"start_timeout must be a positive duration such as \"90s\" or \"5m\"; got "+v.String()+".")
	}
}

// addKubeSpecError reports a refused pod spec on the attribute it names:
// in the block at, or root and exposed_ports of the workspace.
func addKubeSpecError(diags *diag.Diagnostics, at path.Path, summary string, err error) {
	if err == nil {
		return
	}
	p := at
	var fe *spec.KubernetesFieldError
	if errors.As(err, &fe) {
		switch fe.Field {
		case "root", "exposed_ports":
			p = path.Root(fe.Field)
		default:
			p = at.AtName(fe.Field)
		}
	}
	diags.AddAttributeError(p, summary, err.Error())
}

// kubeSpec is the engine's spec of the configuration (unknown values are
// left empty).
func kubeSpec(ctx context.Context, m workspaceModel, b kubernetesBlockModel, diags *diag.Diagnostics) spec.Kubernetes {
	strs := func(mv types.Map) map[string]string {
		if mv.IsNull() || mv.IsUnknown() {
			return nil
		}
		out := map[string]string{}
		diags.Append(mv.ElementsAs(ctx, &out, false)...)
		return out
	}
	ks := spec.Kubernetes{
		Namespace: b.Namespace.ValueString(), Image: b.Image.ValueString(), ImagePullPolicy: b.ImagePullPolicy.ValueString(),
		Labels: strs(b.Labels), ServiceAccount: b.ServiceAccount.ValueString(), NodeSelector: strs(b.NodeSelector),
		RuntimeClassName: b.RuntimeClassName.ValueString(), Root: m.Root.ValueString(),
		Privileged: b.Privileged.ValueBool(),
	}
	if !b.Resources.IsNull() && !b.Resources.IsUnknown() {
		attrs := b.Resources.Attributes()
		if r, ok := attrs["requests"].(types.Map); ok {
			ks.Requests = strs(r)
		}
		if l, ok := attrs["limits"].(types.Map); ok {
			ks.Limits = strs(l)
		}
	}
	if d, err := time.ParseDuration(b.StartTimeout.ValueString()); err == nil {
		ks.StartTimeout = d
	}
	return ks
}

// modifyPlan refuses a new pod workspace when the provider's cluster
// configuration cannot be read (a missing kubeconfig, an unknown context),
// which would otherwise fail only the apply. Nothing is contacted.
func (kubernetesKind) modifyPlan(_ context.Context, eng *workspace.Engine, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, _ workspaceModel) {
	if eng == nil || !req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	if err := eng.CheckKubernetesConfig(); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("kubernetes"), "No usable Kubernetes cluster configuration",
			err.Error()+". Fix the provider's kubernetes block (config_path, config_context, or host with its "+
				"credentials), or KUBECONFIG.")
	}
}

func (kubernetesKind) create(ctx context.Context, eng *workspace.Engine, m workspaceModel, _ tfsdk.Config, private privateSetter, diags *diag.Diagnostics) *workspace.Workspace {
	ks := kubeSpec(ctx, m, kubeBlock(ctx, m.Kubernetes, diags), diags)
	mf := manifestSpec(ctx, m, diags)
	ks.Environment, ks.ExposedPorts, ks.Users, ks.Groups = mf.Environment, mf.ExposedPorts, mf.Users, mf.Groups
	ks.Expiry = newExpiry(m, diags)
	ks.Egress = !m.Egress.IsNull()
	if diags.HasError() {
		return nil
	}
	w, err := eng.CreateKubernetes(ctx, ks)
	if err != nil {
		addEngineAttributeError(diags, path.Root("kubernetes"), "Creating the pod failed", err)
		return nil
	}
	rememberCluster(ctx, eng, private, diags)
	return w
}

// created sets the block's values known once the pod exists: pod_name,
// and image_pull_policy when the cluster chose it.
func (kubernetesKind) created(ctx context.Context, eng *workspace.Engine, w *workspace.Workspace, m *workspaceModel, diags *diag.Diagnostics) {
	attrs := m.Kubernetes.Attributes()
	attrs["pod_name"] = types.StringValue(workspace.PodName(w))
	if v, ok := attrs["image_pull_policy"].(types.String); ok && v.IsUnknown() {
		info, err := eng.DescribeKubernetes(ctx, w)
		if err != nil {
			addEngineError(diags, "Reading the pod failed", err)
			return
		}
		attrs["image_pull_policy"] = types.StringValue(info.ImagePullPolicy)
	}
	obj, d := types.ObjectValue(kubernetesAttrTypes, attrs)
	diags.Append(d...)
	m.Kubernetes = obj
}

// observe reads the block back from the pod: what was changed behind
// Terraform's back shows in the plan; after an import it fills in what the
// pod was created with.
func (kubernetesKind) observe(ctx context.Context, eng *workspace.Engine, w *workspace.Workspace, m *workspaceModel, diags *diag.Diagnostics) {
	info, err := eng.DescribeKubernetes(ctx, w)
	if err != nil {
		addEngineError(diags, "Reading the pod failed", err)
		return
	}
	imported := m.Kubernetes.IsNull()
	prior := kubeBlock(ctx, m.Kubernetes, diags)
	m.Kubernetes = kubeObject(info, prior, workspace.PodName(w))
	if imported {
		importedManifest(info.ExposedPorts, info.Environment, info.Users, info.Groups, m)
	}
}

// kubeObject is the block of a pod read back as info; quantities keep the
// prior spelling when they are the same amount, and start_timeout (not a
// property of the pod) stays as configured.
func kubeObject(info spec.Kubernetes, prior kubernetesBlockModel, podName string) types.Object {
	str := func(s string) types.String {
		if s == "" {
			return types.StringNull()
		}
		return types.StringValue(s)
	}
	quantities := func(read map[string]string, was types.Map) types.Map {
		if len(read) == 0 {
			return types.MapNull(types.StringType)
		}
		return quantityMap(read, was)
	}
	res := types.ObjectNull(kubeResourcesAttrTypes)
	if len(info.Requests)+len(info.Limits) > 0 {
		var oldReq, oldLim types.Map
		if !prior.Resources.IsNull() && !prior.Resources.IsUnknown() {
			oldReq, _ = prior.Resources.Attributes()["requests"].(types.Map)
			oldLim, _ = prior.Resources.Attributes()["limits"].(types.Map)
		}
		res = types.ObjectValueMust(kubeResourcesAttrTypes, map[string]attr.Value{
			"requests": quantities(info.Requests, oldReq), "limits": quantities(info.Limits, oldLim),
		})
	}
	privileged := types.BoolNull()
	if info.Privileged || !prior.Privileged.IsNull() {
		privileged = types.BoolValue(info.Privileged)
	}
	timeout := prior.StartTimeout
	if timeout.IsUnknown() {
		timeout = types.StringNull()
	}
	return types.ObjectValueMust(kubernetesAttrTypes, map[string]attr.Value{
		"namespace": types.StringValue(info.Namespace), "image": types.StringValue(info.Image),
		"image_pull_policy": str(info.ImagePullPolicy), "labels": stringMapValue(info.Labels),
		"service_account": str(info.ServiceAccount), "node_selector": stringMapValue(info.NodeSelector),
		"runtime_class_name": str(info.RuntimeClassName), "resources": res, "privileged": privileged, "start_timeout": timeout,
		"pod_name": types.StringValue(podName),
	})
}

func (kubernetesKind) update(context.Context, *workspace.Engine, resource.UpdateRequest, *workspace.Workspace, *diag.Diagnostics) {
}

// adopt takes "<namespace>/sandbox-<uuid>", the pod's namespace and name.
func (kubernetesKind) adopt(ctx context.Context, eng *workspace.Engine, in string) (*workspace.Workspace, bool, error) {
	ns, name, ok := strings.Cut(in, "/")
	u, isPod := strings.CutPrefix(name, "sandbox-")
	if !ok || !isPod || !workspace.ValidUUID(u) {
		return nil, false, nil
	}
	w, err := eng.Open(ctx, workspace.KubernetesID(u, ns))
	return w, true, err
}

func (kubernetesKind) recordedPorts(ctx context.Context, eng *workspace.Engine, w *workspace.Workspace) ([]int, error) {
	info, err := eng.DescribeKubernetes(ctx, w)
	return info.ExposedPorts, err
}
