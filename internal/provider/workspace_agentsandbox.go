package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// agentSandboxKind is `agent_sandbox { ... }`: a workspace that is an
// agent-sandbox object on the provider's cluster, a SandboxClaim on a
// warm pool or a Sandbox with an inline pod.
type agentSandboxKind struct{}

type agentSandboxBlockModel struct {
	Namespace        types.String `tfsdk:"namespace"`
	WarmPool         types.String `tfsdk:"warm_pool"`
	Image            types.String `tfsdk:"image"`
	ImagePullPolicy  types.String `tfsdk:"image_pull_policy"`
	Labels           types.Map    `tfsdk:"labels"`
	ServiceAccount   types.String `tfsdk:"service_account"`
	NodeSelector     types.Map    `tfsdk:"node_selector"`
	RuntimeClassName types.String `tfsdk:"runtime_class_name"`
	Resources        types.Object `tfsdk:"resources"`
	Privileged       types.Bool   `tfsdk:"privileged"`
	StartTimeout     types.String `tfsdk:"start_timeout"`
	VolumeClaim      types.Object `tfsdk:"volume_claim_template"`
	SandboxName      types.String `tfsdk:"sandbox_name"`
}

// inlinePodAttrs are the block's attributes that describe a Sandbox's pod,
// which a claimed Sandbox takes from its pool's template instead.
var inlinePodAttrs = []string{"image", "image_pull_policy", "labels", "service_account", "node_selector", "runtime_class_name",
	"resources", "privileged", "volume_claim_template"}

func (agentSandboxKind) name() string                           { return workspace.AgentSandboxKind }
func (agentSandboxKind) object(m *workspaceModel) *types.Object { return &m.AgentSandbox }
func (agentSandboxKind) fixedAtCreation() bool                  { return true }
func (agentSandboxKind) keepsRootOwner() bool                   { return false }

// defaultRoot is "": a claimed Sandbox's root is its template's, known
// after the apply (rootFromConfig gives an inline Sandbox's).
func (agentSandboxKind) defaultRoot() string { return "" }

// rootFromConfig is the root planned for an inline Sandbox without root.
func (agentSandboxKind) rootFromConfig(ctx context.Context, cfg tfsdk.Config) string {
	var pool types.String
	cfg.GetAttribute(ctx, path.Root(workspace.AgentSandboxKind).AtName("warm_pool"), &pool)
	if pool.IsNull() {
		return workspace.DefaultDockerRoot
	}
	return ""
}

func (k agentSandboxKind) block() schema.Block {
	b, ok := kubernetesKind{}.block().(schema.SingleNestedBlock)
	if !ok {
		panic("the kubernetes block is not a single nested block")
	}
	attrs := map[string]schema.Attribute{}
	// The pod settings the block shares with kubernetes {} as they are
	// there; the others are described for a Sandbox below.
	for _, name := range []string{"service_account", "node_selector", "runtime_class_name", "resources", "privileged"} {
		attrs[name] = b.Attributes[name]
	}
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	attrs["namespace"] = schema.StringAttribute{Optional: true, PlanModifiers: replace,
		MarkdownDescription: "Namespace of the Sandbox or SandboxClaim, which must exist. Required in the block."}
	attrs["image"] = schema.StringAttribute{Optional: true, PlanModifiers: replace,
		MarkdownDescription: "Image of an inline Sandbox's pod; it needs `sh` and `tail`. Exactly one of `image` and `warm_pool`."}
	attrs["warm_pool"] = schema.StringAttribute{Optional: true, PlanModifiers: replace,
		MarkdownDescription: "Name of a SandboxWarmPool in `namespace` (`sandbox_kubernetes_warm_pool`): the workspace is a " +
			"SandboxClaim bound to one of its ready Sandboxes, whose pod, image and root are its template's. Exactly one of " +
			"`image` and `warm_pool`."}
	attrs["image_pull_policy"] = schema.StringAttribute{Optional: true, PlanModifiers: replace,
		Validators: []validator.String{stringvalidator.OneOf("Always", "IfNotPresent", "Never")},
		MarkdownDescription: "`Always`, `IfNotPresent` or `Never` for an inline Sandbox's image. Default: the cluster's " +
			"(`Always` for a `:latest` or untagged image, else `IfNotPresent`)."}
	attrs["labels"] = schema.MapAttribute{Optional: true, ElementType: types.StringType,
		PlanModifiers:       []planmodifier.Map{mapplanmodifier.RequiresReplace()},
		MarkdownDescription: "Labels added to an inline Sandbox and its pod."}
	attrs["start_timeout"] = schema.StringAttribute{Optional: true,
		MarkdownDescription: "How long creation waits for the claim to be bound and the pod to run, a duration such as " +
			"`\"90s\"`. Default `\"3m\"`."}
	attrs["volume_claim_template"] = schema.SingleNestedAttribute{Optional: true,
		PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplace()},
		MarkdownDescription: "Puts an inline Sandbox's root on a PersistentVolumeClaim (ReadWriteOnce) instead of an " +
			"`emptyDir`, so its files survive `run_state = \"stopped\"` (suspend) and resume. [Details](#agent-sandbox-workspaces).",
		Attributes: map[string]schema.Attribute{
			"size": schema.StringAttribute{Required: true, MarkdownDescription: "Requested storage, a quantity above zero (`\"1Gi\"`)."},
			"storage_class_name": schema.StringAttribute{Optional: true,
				MarkdownDescription: "StorageClass of the claim. Default: the cluster's default class."},
		}}
	attrs["sandbox_name"] = schema.StringAttribute{Computed: true, PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		MarkdownDescription: "Name of the Sandbox serving the workspace, and of its pod: `sandbox-<uuid>` for an inline Sandbox, " +
			"the pool member's name for a claim."}
	return schema.SingleNestedBlock{
		MarkdownDescription: "Selects the agent-sandbox backend (kubernetes-sigs/agent-sandbox on the provider's cluster): the " +
			"workspace is a SandboxClaim on `warm_pool`, or a Sandbox whose pod is given inline with the `kubernetes` block's " +
			"names. `lifetime` becomes its shutdown time, `run_state = \"stopped\"` suspends it. Every setting is fixed at " +
			"creation. [Details](#agent-sandbox-workspaces).",
		PlanModifiers: []planmodifier.Object{replaceWhenAddedOrRemoved{}},
		Attributes:    attrs,
	}
}

func agentBlock(ctx context.Context, o types.Object, diags *diag.Diagnostics) agentSandboxBlockModel {
	var b agentSandboxBlockModel
	if !o.IsNull() && !o.IsUnknown() {
		diags.Append(o.As(ctx, &b, basetypes.ObjectAsOptions{})...)
	}
	return b
}

// asKubernetes is the block's pod settings in the kubernetes block's model,
// to share its checks and conversion.
func (b agentSandboxBlockModel) asKubernetes() kubernetesBlockModel {
	return kubernetesBlockModel{
		Namespace: b.Namespace, Image: b.Image, ImagePullPolicy: b.ImagePullPolicy, Labels: b.Labels,
		ServiceAccount: b.ServiceAccount, NodeSelector: b.NodeSelector, RuntimeClassName: b.RuntimeClassName,
		Resources: b.Resources, Privileged: b.Privileged, StartTimeout: b.StartTimeout,
	}
}

func (agentSandboxKind) validate(ctx context.Context, m workspaceModel, cfg tfsdk.Config, diags *diag.Diagnostics) {
	at := path.Root(workspace.AgentSandboxKind)
	b := agentBlock(ctx, m.AgentSandbox, diags)
	if diags.HasError() {
		return
	}
	switch {
	case b.Namespace.IsNull():
		diags.AddAttributeError(at.AtName("namespace"), "Missing required argument", "an agent_sandbox block needs namespace.")
	case !b.Namespace.IsUnknown():
		if err := workspace.CheckAgentName("namespace", b.Namespace.ValueString()); err != nil {
			diags.AddAttributeError(at.AtName("namespace"), "Invalid namespace", err.Error())
		}
	}
	pool := !b.WarmPool.IsNull()
	switch {
	case pool && !b.Image.IsNull():
		diags.AddAttributeError(at.AtName("warm_pool"), "warm_pool and image together",
			"an agent_sandbox workspace is either claimed from a warm pool (warm_pool) or a Sandbox with its own pod (image "+
				"and the pod settings); remove one of them. A pool's pods are described by its sandbox_kubernetes_template.")
	case !pool && b.Image.IsNull():
		diags.AddAttributeError(at, "Missing warm_pool or image",
			"an agent_sandbox block needs warm_pool (the SandboxWarmPool to claim from) or image (a Sandbox with its own pod).")
	}
	if pool && !b.WarmPool.IsUnknown() {
		if err := workspace.CheckAgentName("warm_pool", b.WarmPool.ValueString()); err != nil {
			diags.AddAttributeError(at.AtName("warm_pool"), "Invalid warm_pool", err.Error())
		}
	}
	checkStartTimeout(at, b.StartTimeout, diags)
	validateAgentWorkspace(ctx, m, cfg, diags)
	if pool {
		validateClaimAttrs(ctx, cfg, at, diags)
		return
	}
	if !b.VolumeClaim.IsNull() && !b.VolumeClaim.IsUnknown() {
		if sz, ok := b.VolumeClaim.Attributes()["size"].(types.String); ok && !sz.IsUnknown() {
			if err := workspace.CheckVolumeSize(sz.ValueString()); err != nil {
				diags.AddAttributeError(at.AtName("volume_claim_template").AtName("size"), "Invalid volume size", err.Error())
			}
		}
	}
	ks := kubeSpec(ctx, m, b.asKubernetes(), diags)
	if diags.HasError() || b.Resources.IsUnknown() {
		return
	}
	addKubeSpecError(diags, at, "Invalid agent_sandbox setting", workspace.CheckKubernetesSpec(ks))
}

// validateClaimAttrs refuses the pod settings on a claim: its Sandbox's
// pod is its pool's template's.
func validateClaimAttrs(ctx context.Context, cfg tfsdk.Config, at path.Path, diags *diag.Diagnostics) {
	for _, name := range inlinePodAttrs {
		if name == "image" {
			continue // with warm_pool, its own error
		}
		var v attr.Value
		diags.Append(cfg.GetAttribute(ctx, at.AtName(name), &v)...)
		if v != nil && !v.IsNull() {
			diags.AddAttributeError(at.AtName(name), name+" with warm_pool",
				"a claimed Sandbox's pod is made from its warm pool's SandboxTemplate: set "+name+" on the sandbox_kubernetes_template "+
					"of the pool, or remove warm_pool and give the pod here.")
		}
	}
	var root types.String
	diags.Append(cfg.GetAttribute(ctx, path.Root("root"), &root)...)
	if !root.IsNull() {
		diags.AddAttributeError(path.Root("root"), "root with warm_pool",
			"a claimed Sandbox's root is its template's root; set root on the sandbox_kubernetes_template, or remove it here.")
	}
	var env types.Map
	diags.Append(cfg.GetAttribute(ctx, path.Root("environment"), &env)...)
	if !env.IsNull() {
		diags.AddAttributeError(path.Root("environment"), "environment with warm_pool",
			"a claimed Sandbox's pod was started before the claim, with its template's environment: set environment on the "+
				"sandbox_kubernetes_template, or give it to commands (sandbox_command.environment).")
	}
}

// validateAgentWorkspace refuses the workspace attributes an agent-sandbox
// workspace cannot have.
func validateAgentWorkspace(ctx context.Context, m workspaceModel, cfg tfsdk.Config, diags *diag.Diagnostics) {
	grants, idx, _ := workspaceGrants(ctx, m.ExtraPathGrants, diags)
	addGrantError(diags, workspace.CheckKubernetesGrants(grants), idx)
	var wo types.Map
	diags.Append(cfg.GetAttribute(ctx, path.Root("environment_wo"), &wo)...)
	if !wo.IsNull() {
		diags.AddAttributeError(path.Root("environment_wo"), "environment_wo needs a Docker workspace",
			"agent_sandbox workspaces take no write-only environment. Give secrets to commands with "+
				"sandbox_command.environment_wo, or to files with sandbox_file.content_wo.")
	}
	if !m.ExposedPorts.IsNull() && !m.ExposedPorts.IsUnknown() && len(m.ExposedPorts.Elements()) > 0 {
		diags.AddAttributeError(path.Root("exposed_ports"), "exposed_ports on an agent_sandbox workspace",
			"an agent_sandbox workspace exposes no ports yet (a Sandbox's Service is headless); use a kubernetes workspace.")
	}
	if !m.Egress.IsNull() {
		diags.AddAttributeError(path.Root("egress"), "egress on an agent_sandbox workspace",
			"egress rules need the provider's egress sidecar, which agent_sandbox pods do not have; use a kubernetes or "+
				"docker workspace.")
	}
	if !m.RunState.IsNull() && !m.RunState.IsUnknown() && m.RunState.ValueString() == workspace.RunPaused {
		diags.AddAttributeError(path.Root("run_state"), "Run state not supported by this workspace kind",
			"run_state = \"paused\": a Sandbox can be suspended (\"stopped\": its pod is deleted, the Sandbox and its volume "+
				"claims stay) but not paused.")
	}
}

// modifyPlan refuses a new workspace when the provider's cluster
// configuration cannot be read, or when the cluster answers (read-only)
// that it does not serve the agent-sandbox kinds or lacks the namespace.
func (agentSandboxKind) modifyPlan(ctx context.Context, eng *workspace.Engine, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, m workspaceModel) {
	kubernetesKind{}.modifyPlan(ctx, eng, req, resp, m)
	if eng == nil || !req.State.Raw.IsNull() || req.Plan.Raw.IsNull() || resp.Diagnostics.HasError() {
		return
	}
	b := agentBlock(ctx, m.AgentSandbox, &resp.Diagnostics)
	if b.Namespace.IsUnknown() || b.Namespace.IsNull() || resp.Diagnostics.HasError() {
		return
	}
	if err := eng.CheckAgentSandbox(ctx, b.Namespace.ValueString(), !b.WarmPool.IsNull()); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root(workspace.AgentSandboxKind).AtName("namespace"), "The cluster cannot take this workspace", err.Error())
	}
}

func (agentSandboxKind) create(ctx context.Context, eng *workspace.Engine, m workspaceModel, _ tfsdk.Config, private privateSetter, diags *diag.Diagnostics) *workspace.Workspace {
	b := agentBlock(ctx, m.AgentSandbox, diags)
	s := spec.AgentSandbox{Kubernetes: kubeSpec(ctx, m, b.asKubernetes(), diags), WarmPool: b.WarmPool.ValueString()}
	mf := manifestSpec(ctx, m, diags)
	s.Environment, s.Users, s.Groups = mf.Environment, mf.Users, mf.Groups
	s.Expiry = newExpiry(m, diags)
	if !b.VolumeClaim.IsNull() && !b.VolumeClaim.IsUnknown() {
		a := b.VolumeClaim.Attributes()
		sz, _ := a["size"].(types.String)
		sc, _ := a["storage_class_name"].(types.String)
		s.VolumeSize, s.StorageClassName = sz.ValueString(), sc.ValueString()
	}
	if diags.HasError() {
		return nil
	}
	w, err := eng.CreateAgentSandbox(ctx, s)
	if err != nil {
		what := "Creating the Sandbox failed"
		if s.WarmPool != "" {
			what = "Claiming a Sandbox failed"
		}
		addEngineAttributeError(diags, path.Root(workspace.AgentSandboxKind), what, err)
		return nil
	}
	rememberCluster(ctx, eng, private, diags)
	return w
}

// created sets sandbox_name.
func (agentSandboxKind) created(_ context.Context, _ *workspace.Engine, w *workspace.Workspace, m *workspaceModel, diags *diag.Diagnostics) {
	setAgentAttr(m, "sandbox_name", types.StringValue(workspace.SandboxName(w)), diags)
}

func setAgentAttr(m *workspaceModel, name string, v attr.Value, diags *diag.Diagnostics) {
	attrs := m.AgentSandbox.Attributes()
	attrs[name] = v
	obj, d := types.ObjectValue(m.AgentSandbox.AttributeTypes(context.Background()), attrs)
	diags.Append(d...)
	m.AgentSandbox = obj
}

// observe keeps the block as configured (what a Sandbox or claim was
// created with cannot change in place; sandbox_name follows the object);
// after an import, it reads the block back from the object.
func (agentSandboxKind) observe(ctx context.Context, eng *workspace.Engine, w *workspace.Workspace, m *workspaceModel, diags *diag.Diagnostics) {
	if m.AgentSandbox.IsUnknown() {
		return
	}
	if m.AgentSandbox.IsNull() {
		imported(ctx, eng, w, m, diags)
		return
	}
	if name := workspace.SandboxName(w); name != "" {
		setAgentAttr(m, "sandbox_name", types.StringValue(name), diags)
	}
}

// imported fills in the block of an imported workspace from its object.
func imported(ctx context.Context, eng *workspace.Engine, w *workspace.Workspace, m *workspaceModel, diags *diag.Diagnostics) {
	info, err := eng.DescribeAgentSandbox(ctx, w)
	if err != nil {
		addEngineError(diags, "Reading the agent-sandbox object failed", err)
		return
	}
	attrs := map[string]attr.Value{}
	for k, t := range m.AgentSandbox.AttributeTypes(ctx) {
		attrs[k] = nullOf(t)
	}
	attrs["namespace"] = types.StringValue(info.Namespace)
	attrs["sandbox_name"] = types.StringValue(workspace.SandboxName(w))
	if info.WarmPool != "" {
		attrs["warm_pool"] = types.StringValue(info.WarmPool)
	} else {
		pod := kubeObject(info.Kubernetes, kubernetesBlockModel{}, "").Attributes()
		for _, k := range []string{"image", "image_pull_policy", "labels", "service_account", "node_selector", "runtime_class_name",
			"resources", "privileged"} {
			attrs[k] = pod[k]
		}
		if info.VolumeSize != "" {
			sc := types.StringNull()
			if info.StorageClassName != "" {
				sc = types.StringValue(info.StorageClassName)
			}
			attrs["volume_claim_template"] = types.ObjectValueMust(volumeClaimAttrTypes,
				map[string]attr.Value{"size": types.StringValue(info.VolumeSize), "storage_class_name": sc})
		}
		importedManifest(nil, info.Environment, info.Users, info.Groups, m)
	}
	obj, d := types.ObjectValue(m.AgentSandbox.AttributeTypes(ctx), attrs)
	diags.Append(d...)
	m.AgentSandbox = obj
}

// nullOf is the null value of t.
func nullOf(t attr.Type) attr.Value {
	switch t := t.(type) {
	case types.MapType:
		return types.MapNull(t.ElemType)
	case types.ObjectType:
		return types.ObjectNull(t.AttrTypes)
	case basetypes.BoolType:
		return types.BoolNull()
	}
	return types.StringNull()
}

func (agentSandboxKind) update(context.Context, *workspace.Engine, resource.UpdateRequest, *workspace.Workspace, *diag.Diagnostics) {
}

func (agentSandboxKind) missing(ctx context.Context, eng *workspace.Engine, p privateGetter, id string, diags *diag.Diagnostics) bool {
	return kubernetesKind{}.missing(ctx, eng, p, id, diags)
}

// adopt takes no import ID of its own: the workspace id is the import ID.
func (agentSandboxKind) adopt(context.Context, *workspace.Engine, string) (*workspace.Workspace, bool, error) {
	return nil, false, nil
}

func (agentSandboxKind) imported(ctx context.Context, eng *workspace.Engine, w *workspace.Workspace, resp *resource.ImportStateResponse) {
	kubernetesKind{}.imported(ctx, eng, w, resp)
}

func (agentSandboxKind) find(context.Context, *workspace.Engine, workspaceDataModel, *diag.Diagnostics) (*workspace.Workspace, path.Path, bool, error) {
	return nil, path.Empty(), false, nil
}

func (agentSandboxKind) recordedPorts(context.Context, *workspace.Engine, *workspace.Workspace) ([]int, error) {
	return nil, nil
}
