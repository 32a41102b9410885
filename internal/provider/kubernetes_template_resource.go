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
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

var (
	_ resource.ResourceWithConfigure      = (*kubeTemplateResource)(nil)
	_ resource.ResourceWithImportState    = (*kubeTemplateResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*kubeTemplateResource)(nil)
	_ resource.ResourceWithValidateConfig = (*kubeTemplateResource)(nil)
)

// NewKubernetesTemplateResource returns the sandbox_kubernetes_template
// resource: an agent-sandbox SandboxTemplate whose pods are workspace
// pods.
func NewKubernetesTemplateResource() resource.Resource { return &kubeTemplateResource{} }

type kubeTemplateResource struct{ eng *workspace.Engine }

type kubeTemplateModel struct {
	ID                   types.String `tfsdk:"id"`
	Name                 types.String `tfsdk:"name"`
	Namespace            types.String `tfsdk:"namespace"`
	Image                types.String `tfsdk:"image"`
	ImagePullPolicy      types.String `tfsdk:"image_pull_policy"`
	Labels               types.Map    `tfsdk:"labels"`
	ServiceAccount       types.String `tfsdk:"service_account"`
	NodeSelector         types.Map    `tfsdk:"node_selector"`
	RuntimeClassName     types.String `tfsdk:"runtime_class_name"`
	Resources            types.Object `tfsdk:"resources"`
	Privileged           types.Bool   `tfsdk:"privileged"`
	Root                 types.String `tfsdk:"root"`
	Environment          types.Map    `tfsdk:"environment"`
	VolumeClaimTemplate  types.Object `tfsdk:"volume_claim_template"`
	ManagedNetworkPolicy types.Bool   `tfsdk:"managed_network_policy"`
}

var volumeClaimAttrTypes = map[string]attr.Type{"size": types.StringType, "storage_class_name": types.StringType}

// Plan-time checks of the names of agent-sandbox objects and namespaces.
var (
	templateNameRule = stringRule{"a DNS-1123 subdomain", "Invalid SandboxTemplate name",
		func(s string) string { return errText(workspace.CheckSandboxTemplateName(s)) }}
	warmPoolNameRule = stringRule{"a DNS-1123 subdomain", "Invalid SandboxWarmPool name",
		func(s string) string { return errText(workspace.CheckSandboxWarmPoolName(s)) }}
	namespaceRule = stringRule{"a DNS-1123 label", "Invalid namespace",
		func(s string) string { return errText(workspace.CheckNamespaceName(s)) }}
	volumeSizeRule = stringRule{"a quantity above zero", "Invalid volume size",
		func(s string) string { return errText(workspace.CheckVolumeSize(s)) }}
)

func (r *kubeTemplateResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_kubernetes_template"
}

func (r *kubeTemplateResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	strMap := func(desc string) schema.MapAttribute {
		return schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "An agent-sandbox `SandboxTemplate` (kubernetes-sigs/agent-sandbox v1.0.1, API `v1beta1`) on " +
			"the provider's cluster: every Sandbox made from it, by a `sandbox_kubernetes_warm_pool` or for a claim, runs a " +
			"workspace pod as `sandbox_workspace`'s `kubernetes` block makes it (kept alive by `tail -f /dev/null`, the root " +
			"on an `emptyDir` or a claim of `volume_claim_template`). The provider's file helper is installed into a pod the " +
			"first time the provider uses it, so pods become ready on their own.\n\n" +
			"Everything but `name` and `namespace` changes in place. Sandboxes made before keep their pods: a warm pool " +
			"replaces its stale Sandboxes only when they are claimed or deleted (its default update strategy). A cluster " +
			"without the agent-sandbox CRDs fails the apply with a link to its installation; the controller must run with " +
			"its extensions. Import with `<namespace>/<name>`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "`<namespace>/<name>`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"name": schema.StringAttribute{Required: true, PlanModifiers: replace, Validators: []validator.String{templateNameRule},
				MarkdownDescription: "Name of the SandboxTemplate, a DNS-1123 subdomain (lower case, digits, `-` and `.`, at most " +
					"253 characters), checked at plan time. Changing it replaces the template."},
			"namespace": schema.StringAttribute{Required: true, PlanModifiers: replace, Validators: []validator.String{namespaceRule},
				MarkdownDescription: "Namespace of the template and of its Sandboxes, which must exist: a DNS-1123 label. " +
					"Changing it replaces the template."},
			"image": schema.StringAttribute{Required: true, Validators: []validator.String{stringvalidator.LengthAtLeast(1), notBlankRule},
				MarkdownDescription: "Container image of the workspace container; it needs `sh` and `tail`."},
			"image_pull_policy": schema.StringAttribute{Optional: true,
				Validators: []validator.String{stringvalidator.OneOf("Always", "IfNotPresent", "Never")},
				MarkdownDescription: "`Always`, `IfNotPresent` or `Never`. Default: the cluster's (`Always` for a `:latest` " +
					"or untagged image, else `IfNotPresent`)."},
			"labels":          strMap("Labels of each Sandbox's pod (not of the template object)."),
			"service_account": schema.StringAttribute{Optional: true, MarkdownDescription: "Service account of the pods; its token is not mounted. Default: the namespace's `default`."},
			"node_selector":   strMap("Node labels the pods must be scheduled on."),
			"runtime_class_name": schema.StringAttribute{Optional: true,
				MarkdownDescription: "RuntimeClass of the pods, such as `gvisor` or `kata` where the cluster has them."},
			"resources": schema.SingleNestedAttribute{Optional: true,
				MarkdownDescription: "The workspace container's `requests` and `limits`: resource name to quantity, " +
					"`{ cpu = \"250m\", memory = \"256Mi\" }`. Quantities compare by amount.",
				Attributes: map[string]schema.Attribute{
					"requests": schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Requested resources."},
					"limits":   schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Resource limits."},
				}},
			"privileged": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Run the workspace container privileged, which in-container storage mounts (FUSE) need: " +
					"it then has every capability and the node's devices. Default `false`."},
			"root": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(workspace.DefaultDockerRoot),
				Validators: []validator.String{absolutePathValidator{}},
				MarkdownDescription: "Absolute workspace root in the pods (the Python SDK's manifest root). Default `" +
					workspace.DefaultDockerRoot + "`."},
			"environment": schema.MapAttribute{Optional: true, ElementType: types.StringType, Validators: []validator.Map{envMapValidator{}},
				MarkdownDescription: "Environment variables of the workspace container, name to value. Values are kept in the " +
					"template and in state in clear text: give secrets to commands with `sandbox_command.environment_wo`."},
			"volume_claim_template": schema.SingleNestedAttribute{Optional: true,
				MarkdownDescription: "Puts the workspace root on a PersistentVolumeClaim (ReadWriteOnce) made for each Sandbox " +
					"instead of an `emptyDir`, so its files survive a suspend and resume; deleted with its Sandbox. Unset: " +
					"an `emptyDir`, lost with the pod.",
				Attributes: map[string]schema.Attribute{
					"size": schema.StringAttribute{Required: true, Validators: []validator.String{volumeSizeRule},
						MarkdownDescription: "Requested storage, a Kubernetes quantity above zero such as `\"10Gi\"`; checked at plan time."},
					"storage_class_name": schema.StringAttribute{Optional: true,
						MarkdownDescription: "StorageClass of the claims. Default: the cluster's default class."},
				}},
			"managed_network_policy": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Let the agent-sandbox controller manage the template's NetworkPolicy (`networkPolicyManagement` " +
					"`Managed`). Default `false` (`Unmanaged`): the controller's default policy blocks cluster DNS and every " +
					"private range, and admits ingress only from its router; the provider needs neither to reach a pod."},
		},
	}
}

// notBlankRule refuses a value of only spaces.
var notBlankRule = stringRule{"must not be blank", "Blank value", func(s string) string {
	if s != "" && strings.TrimSpace(s) == "" {
		return "the value must not be only spaces."
	}
	return ""
}}

func (r *kubeTemplateResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.eng = engineFrom(req.ProviderData, &resp.Diagnostics)
}

// ValidateConfig checks the pod the template describes as a pod
// workspace's is checked (labels, quantities, names), each error on its
// attribute. Names and namespace have validators of their own.
func (r *kubeTemplateResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m kubeTemplateModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || m.Resources.IsUnknown() || m.VolumeClaimTemplate.IsUnknown() {
		return
	}
	t := m.template(ctx, &resp.Diagnostics)
	t.Name, t.Pod.Namespace = "", ""
	if t.RootVolume != nil {
		t.RootVolume.Size = "" // checked by its validator
	}
	if resp.Diagnostics.HasError() {
		return
	}
	if err := workspace.CheckKubernetesTemplate(t); err != nil {
		p := path.Empty()
		var fe *spec.KubernetesFieldError
		if errors.As(err, &fe) {
			p = path.Root(fe.Field)
		}
		resp.Diagnostics.AddAttributeError(p, "Invalid SandboxTemplate setting", err.Error())
	}
}

// template is the engine's template of m; unknown values are left empty.
func (m kubeTemplateModel) template(ctx context.Context, diags *diag.Diagnostics) spec.KubernetesTemplate {
	t := spec.KubernetesTemplate{Name: m.Name.ValueString(), ManagedNetworkPolicy: m.ManagedNetworkPolicy.ValueBool()}
	t.Pod = spec.Kubernetes{
		Namespace: m.Namespace.ValueString(), Image: m.Image.ValueString(), ImagePullPolicy: m.ImagePullPolicy.ValueString(),
		Labels: stringMap(ctx, m.Labels, diags), ServiceAccount: m.ServiceAccount.ValueString(),
		NodeSelector: stringMap(ctx, m.NodeSelector, diags), RuntimeClassName: m.RuntimeClassName.ValueString(),
		Privileged: m.Privileged.ValueBool(), Root: m.Root.ValueString(), Environment: stringMap(ctx, m.Environment, diags),
	}
	if !m.Resources.IsNull() && !m.Resources.IsUnknown() {
		attrs := m.Resources.Attributes()
		if v, ok := attrs["requests"].(types.Map); ok {
			t.Pod.Requests = stringMap(ctx, v, diags)
		}
		if v, ok := attrs["limits"].(types.Map); ok {
			t.Pod.Limits = stringMap(ctx, v, diags)
		}
	}
	if !m.VolumeClaimTemplate.IsNull() && !m.VolumeClaimTemplate.IsUnknown() {
		attrs := m.VolumeClaimTemplate.Attributes()
		size, _ := attrs["size"].(types.String)
		class, _ := attrs["storage_class_name"].(types.String)
		t.RootVolume = &spec.KubernetesRootVolume{Size: size.ValueString(), StorageClassName: class.ValueString()}
	}
	return t
}

// stringMap is a map of strings' known value (nil when null or unknown).
func stringMap(ctx context.Context, m types.Map, diags *diag.Diagnostics) map[string]string {
	if m.IsNull() || m.IsUnknown() {
		return nil
	}
	out := map[string]string{}
	diags.Append(m.ElementsAs(ctx, &out, false)...)
	return out
}

// ModifyPlan refuses a new template when the provider's cluster
// configuration cannot be read; nothing is contacted.
func (r *kubeTemplateResource) ModifyPlan(_ context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	checkClusterConfigAtPlan(r.eng, req, resp)
}

// checkClusterConfigAtPlan refuses a resource to create on a cluster whose
// configuration (kubeconfig, context, credentials) cannot be read, which
// would otherwise fail only the apply. Nothing is contacted.
func checkClusterConfigAtPlan(eng *workspace.Engine, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if eng == nil || !req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	if err := eng.CheckKubernetesConfig(); err != nil {
		resp.Diagnostics.AddError("No usable Kubernetes cluster configuration", err.Error()+". Fix the provider's "+
			"kubernetes block (config_path, config_context, or host with its credentials), or KUBECONFIG.")
	}
}

// kubeOpTimeout bounds the template's operations: single requests, and a
// deletion that nothing holds.
const kubeOpTimeout = 2 * time.Minute

func (r *kubeTemplateResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.apply(ctx, req.Plan, &resp.State, &resp.Diagnostics, true)
}

func (r *kubeTemplateResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.apply(ctx, req.Plan, &resp.State, &resp.Diagnostics, false)
}

func (r *kubeTemplateResource) apply(ctx context.Context, plan tfsdk.Plan, state *tfsdk.State, diags *diag.Diagnostics, create bool) {
	var m kubeTemplateModel
	diags.Append(plan.Get(ctx, &m)...)
	t := m.template(ctx, diags)
	if diags.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, kubeOpTimeout)
	defer cancel()
	if create {
		if err := r.eng.CreateKubernetesTemplate(ctx, t); err != nil {
			addEngineError(diags, "Creating the SandboxTemplate failed", err)
			return
		}
	} else if err := r.eng.UpdateKubernetesTemplate(ctx, t); err != nil {
		addEngineError(diags, "Updating the SandboxTemplate failed", err)
		return
	}
	m.ID = types.StringValue(workspace.KubernetesObjectID(t.Pod.Namespace, t.Name))
	diags.Append(state.Set(ctx, &m)...)
}

// Read reads the template back from the cluster: a change made outside
// Terraform shows in the plan; a template deleted outside Terraform leaves
// the state (and is planned for creation).
func (r *kubeTemplateResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m kubeTemplateModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	t, found, err := r.eng.ReadKubernetesTemplate(ctx, m.Namespace.ValueString(), m.Name.ValueString())
	switch {
	case err != nil:
		addEngineError(&resp.Diagnostics, "Reading the SandboxTemplate failed", err)
		return
	case !found:
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, templateModel(t, m))...)
}

func (r *kubeTemplateResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m kubeTemplateModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, kubeOpTimeout)
	defer cancel()
	if err := r.eng.DeleteKubernetesTemplate(ctx, m.Namespace.ValueString(), m.Name.ValueString()); err != nil {
		addEngineError(&resp.Diagnostics, "Deleting the SandboxTemplate failed", err)
	}
}

// ImportState takes "<namespace>/<name>"; Read fills in the rest.
func (r *kubeTemplateResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ns, name, err := workspace.ParseKubernetesObjectID(req.ID, "sandbox_kubernetes_template")
	if err != nil {
		resp.Diagnostics.AddError("Invalid import id", err.Error())
		return
	}
	m := kubeTemplateModel{
		ID: types.StringValue(req.ID), Name: types.StringValue(name), Namespace: types.StringValue(ns),
		Labels: types.MapNull(types.StringType), NodeSelector: types.MapNull(types.StringType),
		Environment: types.MapNull(types.StringType), Resources: types.ObjectNull(kubeResourcesAttrTypes),
		VolumeClaimTemplate: types.ObjectNull(volumeClaimAttrTypes),
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
