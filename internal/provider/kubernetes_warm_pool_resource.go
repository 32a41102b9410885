package provider

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"fmt"
	"math"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

var (
	_ resource.ResourceWithConfigure   = (*kubeWarmPoolResource)(nil)
	_ resource.ResourceWithImportState = (*kubeWarmPoolResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*kubeWarmPoolResource)(nil)
)

// NewKubernetesWarmPoolResource returns the sandbox_kubernetes_warm_pool
// resource: an agent-sandbox SandboxWarmPool keeping Sandboxes of a
// SandboxTemplate ready.
func NewKubernetesWarmPoolResource() resource.Resource { return &kubeWarmPoolResource{} }

type kubeWarmPoolResource struct{ eng *workspace.Engine }

type kubeWarmPoolModel struct {
	ID            types.String   `tfsdk:"id"`
	Name          types.String   `tfsdk:"name"`
	Namespace     types.String   `tfsdk:"namespace"`
	Template      types.String   `tfsdk:"template"`
	Replicas      types.Int64    `tfsdk:"replicas"`
	WaitForReady  types.Bool     `tfsdk:"wait_for_ready"`
	ReadyReplicas types.Int64    `tfsdk:"ready_replicas"`
	Timeouts      timeouts.Value `tfsdk:"timeouts"`
}

// warmPoolTimeouts are the defaults of the timeouts block: a pool's
// Sandboxes start pods (images, scheduling); deletion waits for them to go.
var warmPoolTimeouts = map[string]opDefault{
	opCreate: {def: 10 * time.Minute, what: "creating the pool and waiting for its Sandboxes to be ready"},
	opUpdate: {def: 10 * time.Minute, what: "changing the pool and waiting for its Sandboxes to be ready"},
	opDelete: {def: 5 * time.Minute, what: "deleting the pool and its Sandboxes"},
}

func (r *kubeWarmPoolResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_kubernetes_warm_pool"
}

func (r *kubeWarmPoolResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "An agent-sandbox `SandboxWarmPool` (kubernetes-sigs/agent-sandbox v1.0.1, API `v1beta1`) on " +
			"the provider's cluster: its controller keeps `replicas` Sandboxes of a `SandboxTemplate` (such as a " +
			"`sandbox_kubernetes_template`) running, ready to be claimed, and makes a new one for each Sandbox claimed.\n\n" +
			"`template` and `replicas` change in place. By default an apply waits until the controller counts `replicas` " +
			"ready Sandboxes; a Sandbox whose pod can never start (an image that may not be pulled) fails it at once, and " +
			"a wait past `timeouts` fails saying how many are ready and why one is not. A pool that fails its creation " +
			"this way is tainted and replaced on the next apply. Destroy deletes the pool and waits until its Sandboxes " +
			"and their pods are gone. Import with `<namespace>/<name>`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "`<namespace>/<name>`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"name": schema.StringAttribute{Required: true, PlanModifiers: replace, Validators: []validator.String{warmPoolNameRule},
				MarkdownDescription: "Name of the SandboxWarmPool, a DNS-1123 subdomain (lower case, digits, `-` and `.`, at " +
					"most 253 characters), checked at plan time. Its Sandboxes are named after it. Changing it replaces the pool."},
			"namespace": schema.StringAttribute{Required: true, PlanModifiers: replace, Validators: []validator.String{namespaceRule},
				MarkdownDescription: "Namespace of the pool, its template and its Sandboxes, which must exist: a DNS-1123 " +
					"label. Changing it replaces the pool."},
			"template": schema.StringAttribute{Required: true, Validators: []validator.String{templateNameRule},
				MarkdownDescription: "Name of the SandboxTemplate of the same namespace the Sandboxes are made from. Changing " +
					"it is done in place: Sandboxes made before stay until they are claimed or deleted."},
			"replicas": schema.Int64Attribute{Required: true,
				Validators: []validator.Int64{int64validator.Between(0, math.MaxInt32)},
				MarkdownDescription: "How many unclaimed Sandboxes the pool keeps, a whole number ≥ 0. Changing it is done in " +
					"place: the controller creates or deletes Sandboxes."},
			"wait_for_ready": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Whether create and update wait until the controller counts at least `replicas` ready " +
					"Sandboxes (bounded by `timeouts`), then installs the provider's file helper into them, so their claims start " +
					"at once. Default `true`; `false` returns once the pool is written."},
			"ready_replicas": schema.Int64Attribute{Computed: true,
				MarkdownDescription: "Sandboxes of the pool whose pods are ready, as its controller last counted them; " +
					"refreshed on every read."},
		},
		Blocks: map[string]schema.Block{"timeouts": warmPoolTimeoutsBlock(ctx)},
	}
}

// warmPoolTimeoutsBlock is the timeouts block, described as a pool's
// timeouts end: the pool is kept, nothing is undone.
func warmPoolTimeoutsBlock(ctx context.Context) schema.Block {
	b, ok := timeoutsBlock(ctx, warmPoolTimeouts).(schema.SingleNestedBlock)
	if !ok {
		panic("timeoutsBlock is no longer a SingleNestedBlock")
	}
	for op, a := range b.Attributes {
		s, ok := a.(schema.StringAttribute)
		if !ok {
			panic("timeouts attribute " + op + " is no longer a string")
		}
		d := warmPoolTimeouts[op]
		after := map[string]string{
			opCreate: "the apply fails saying how many Sandboxes are ready and why one is not; the pool is kept, tainted " +
				"(the next apply replaces it).",
			opUpdate: "the apply fails saying how many Sandboxes are ready and why one is not; the pool keeps its new spec.",
			opDelete: "the destroy fails; the cluster goes on deleting the pool and its Sandboxes.",
		}[op]
		s.Description = fmt.Sprintf("How long %s may take: a duration such as `\"90s\"` or `\"15m\"`; default `%q`. On expiry %s",
			d.what, shortDuration(d.def), after)
		s.MarkdownDescription = s.Description
		b.Attributes[op] = s
	}
	return b
}

func (r *kubeWarmPoolResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.eng = engineFrom(req.ProviderData, &resp.Diagnostics)
}

// ModifyPlan refuses a new pool when the cluster configuration cannot be
// read, and keeps ready_replicas known when the pool itself does not
// change (a new timeout, say), so the plan shows no noise.
func (r *kubeWarmPoolResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	checkClusterConfigAtPlan(r.eng, req, resp)
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	var plan, state kubeWarmPoolModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if plan.Template.Equal(state.Template) && plan.Replicas.Equal(state.Replicas) && plan.WaitForReady.Equal(state.WaitForReady) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("ready_replicas"), state.ReadyReplicas)...)
	}
}

func (m kubeWarmPoolModel) pool() spec.KubernetesWarmPool {
	return spec.KubernetesWarmPool{Namespace: m.Namespace.ValueString(), Name: m.Name.ValueString(),
		Template: m.Template.ValueString(), Replicas: m.Replicas.ValueInt64()}
}

func (r *kubeWarmPoolResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m kubeWarmPoolModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, timer := startOp(ctx, m.Timeouts, opCreate, warmPoolTimeouts[opCreate].def, &resp.Diagnostics)
	defer cancel()
	defer finishPool(timer, "The SandboxWarmPool was created and is kept, marked tainted: the next apply replaces it. "+
		"Raise timeouts.create, or set wait_for_ready = false, and apply again.", &resp.Diagnostics)
	p := m.pool()
	if err := r.eng.CreateKubernetesWarmPool(ctx, p); err != nil {
		addEngineError(&resp.Diagnostics, "Creating the SandboxWarmPool failed", err)
		return
	}
	m.ID = types.StringValue(workspace.KubernetesObjectID(p.Namespace, p.Name))
	m.ReadyReplicas = types.Int64Value(0)
	// The pool exists from here on: should the wait fail, the state keeps
	// it (tainted), so that the next apply replaces it.
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	r.settle(ctx, &m, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *kubeWarmPoolResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m, prior kubeWarmPoolModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, timer := startOp(ctx, m.Timeouts, opUpdate, warmPoolTimeouts[opUpdate].def, &resp.Diagnostics)
	defer cancel()
	defer finishPool(timer, "The SandboxWarmPool was changed as planned and is kept. Raise timeouts.update, or set "+
		"wait_for_ready = false, and apply again.", &resp.Diagnostics)
	if !m.Template.Equal(prior.Template) || !m.Replicas.Equal(prior.Replicas) {
		if err := r.eng.UpdateKubernetesWarmPool(ctx, m.pool()); err != nil {
			addEngineError(&resp.Diagnostics, "Updating the SandboxWarmPool failed", err)
			return
		}
	}
	if m.ReadyReplicas.IsUnknown() {
		m.ReadyReplicas = prior.ReadyReplicas
		r.settle(ctx, &m, &resp.Diagnostics)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// settle sets m.ReadyReplicas from the cluster: after waiting for enough
// ready Sandboxes when wait_for_ready is set, else as the pool reads now.
func (r *kubeWarmPoolResource) settle(ctx context.Context, m *kubeWarmPoolModel, diags *diag.Diagnostics) {
	p := m.pool()
	var (
		st  spec.KubernetesWarmPoolStatus
		err error
	)
	if m.WaitForReady.ValueBool() {
		st, err = r.eng.WaitKubernetesWarmPool(ctx, p.Namespace, p.Name, p.Replicas)
		if err != nil {
			m.ReadyReplicas = types.Int64Value(st.ReadyReplicas)
			addEngineError(diags, "The SandboxWarmPool's Sandboxes did not become ready", err)
			return
		}
		// Claims of primed members have nothing to install.
		n, err := r.eng.PrimeWarmPool(ctx, p.Namespace, p.Name)
		tflog.Info(ctx, "installed the file helper into the pool's ready members", map[string]any{"pool": p.Name, "members": n})
		if err != nil {
			diags.AddWarning("The file helper was not installed into every member of the pool",
				err.Error()+"\n\nA claim of such a member installs it itself, which takes about a second longer.")
		}
	} else {
		st, _, err = r.eng.ReadKubernetesWarmPool(ctx, p.Namespace, p.Name)
		if err != nil {
			addEngineError(diags, "Reading the SandboxWarmPool failed", err)
			return
		}
	}
	m.ReadyReplicas = types.Int64Value(st.ReadyReplicas)
}

// Read reads the pool back: replicas or template changed outside
// Terraform show in the plan; a pool deleted outside Terraform leaves the
// state (and is planned for creation).
func (r *kubeWarmPoolResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m kubeWarmPoolModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	st, found, err := r.eng.ReadKubernetesWarmPool(ctx, m.Namespace.ValueString(), m.Name.ValueString())
	switch {
	case err != nil:
		addEngineError(&resp.Diagnostics, "Reading the SandboxWarmPool failed", err)
		return
	case !found:
		resp.State.RemoveResource(ctx)
		return
	}
	m.ID = types.StringValue(workspace.KubernetesObjectID(m.Namespace.ValueString(), m.Name.ValueString()))
	m.Template, m.Replicas, m.ReadyReplicas = types.StringValue(st.Template), types.Int64Value(st.Replicas), types.Int64Value(st.ReadyReplicas)
	if m.WaitForReady.IsNull() {
		m.WaitForReady = types.BoolValue(true) // imported
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *kubeWarmPoolResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m kubeWarmPoolModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, timer := startOp(ctx, m.Timeouts, opDelete, warmPoolTimeouts[opDelete].def, &resp.Diagnostics)
	defer cancel()
	defer finishPool(timer, "The SandboxWarmPool and its Sandboxes are still being deleted by the cluster. Raise "+
		"timeouts.delete and destroy again.", &resp.Diagnostics)
	if err := r.eng.DeleteKubernetesWarmPool(ctx, m.Namespace.ValueString(), m.Name.ValueString()); err != nil {
		addEngineError(&resp.Diagnostics, "Deleting the SandboxWarmPool failed", err)
	}
}

// finishPool turns the errors of a pool operation that ran out of time
// into one error on timeouts.<op>: where the pool stands, as the engine
// says it, and what is kept (next).
func finishPool(o *opTimer, next string, diags *diag.Diagnostics) {
	if !o.expired() || !diags.HasError() {
		return
	}
	var (
		kept   diag.Diagnostics
		detail string
	)
	for _, d := range *diags {
		if d.Severity() != diag.SeverityError {
			kept = append(kept, d)
		} else if detail == "" {
			detail = d.Detail()
		}
	}
	kept.AddAttributeError(path.Root("timeouts").AtName(o.op),
		fmt.Sprintf("Timed out after %s: raise timeouts.%s", shortDuration(o.timeout), o.op), detail+"\n\n"+next)
	*diags = kept
}

// ImportState takes "<namespace>/<name>"; Read fills in the rest.
func (r *kubeWarmPoolResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ns, name, err := workspace.ParseKubernetesObjectID(req.ID, "sandbox_kubernetes_warm_pool")
	if err != nil {
		resp.Diagnostics.AddError("Invalid import id", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), ns)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("wait_for_ready"), true)...)
}
