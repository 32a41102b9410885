package provider

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

var (
	_ resource.ResourceWithConfigure      = (*workspaceResource)(nil)
	_ resource.ResourceWithImportState    = (*workspaceResource)(nil)
	_ resource.ResourceWithValidateConfig = (*workspaceResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*workspaceResource)(nil)
	_ resource.ResourceWithUpgradeState   = (*workspaceResource)(nil)
)

// NewWorkspaceResource returns the sandbox_workspace resource.
func NewWorkspaceResource() resource.Resource { return &workspaceResource{} }

type workspaceResource struct {
	eng *workspace.Engine
}

type workspaceModel struct {
	ID            types.String `tfsdk:"id"`
	Root          types.String `tfsdk:"root"`
	ContainerID   types.String `tfsdk:"container_id"`
	Local         types.Object `tfsdk:"local"`
	Docker        types.Object `tfsdk:"docker"`
	Kubernetes    types.Object `tfsdk:"kubernetes"`
	AgentSandbox  types.Object `tfsdk:"agent_sandbox"`
	KeepOnDestroy types.Bool   `tfsdk:"keep_on_destroy"`
	Environment   types.Map    `tfsdk:"environment"`
	EnvironmentWO types.Map    `tfsdk:"environment_wo"`
	EnvWOVersion  types.Int64  `tfsdk:"environment_wo_version"`
	Users         types.List   `tfsdk:"users"`
	Groups        types.List   `tfsdk:"groups"`
	ExposedPorts  types.List   `tfsdk:"exposed_ports"`
	Endpoints     types.List   `tfsdk:"endpoints"`
	Running       types.Bool   `tfsdk:"running"`
	StartedAt     types.String `tfsdk:"started_at"`
	RestoreFrom   types.Object `tfsdk:"restore_from"`
	RootOwner     types.String `tfsdk:"root_owner"`
	// ExtraPathGrants is in workspace_grants.go.
	ExtraPathGrants types.List `tfsdk:"extra_path_grants"`
	// Lifetime, OnExpiry and ExpiresAt are in workspace_expiry.go.
	Lifetime  types.String `tfsdk:"lifetime"`
	OnExpiry  types.String `tfsdk:"on_expiry"`
	ExpiresAt types.String `tfsdk:"expires_at"`
	// Timeouts is in workspace_timeouts.go.
	Timeouts timeouts.Value `tfsdk:"timeouts"`
	// RunState and WaitUntil are in workspace_runstate.go.
	RunState  types.String `tfsdk:"run_state"`
	WaitUntil types.String `tfsdk:"wait_until"`
	// Egress is in workspace_egress.go.
	Egress types.Object `tfsdk:"egress"`
}

var endpointAttrTypes = map[string]attr.Type{
	"port": types.Int64Type, "host": types.StringType, "host_port": types.Int64Type,
	"tls": types.BoolType, "url_http": types.StringType, "url_ws": types.StringType,
}

var userAttrTypes = map[string]attr.Type{"name": types.StringType}

func (r *workspaceResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_workspace"
}

func (r *workspaceResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.eng = engineFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *workspaceResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m workspaceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	switch set := configuredKinds(&m); len(set) {
	case 0:
		resp.Diagnostics.AddError("Missing backend block",
			"sandbox_workspace needs a block selecting its backend: write `local {}` for a directory on this machine, "+
				"or `docker { image = \"...\" }` for a container.")
	case 1:
		set[0].validate(ctx, m, req.Config, &resp.Diagnostics)
		validateEgress(ctx, m, set[0].name(), &resp.Diagnostics)
		validateRunState(ctx, m, set[0].name(), &resp.Diagnostics)
	default:
		resp.Diagnostics.AddAttributeError(path.Root(set[1].name()), "Conflicting backend blocks",
			"a workspace has exactly one backend: write one of "+kindBlockNames()+", not several.")
	}
	checkGroupsNotUsers(m, &resp.Diagnostics)
	validateExpiry(ctx, m, req.Config, &resp.Diagnostics)
}

// ModifyPlan plans the declared run state and lets the kind
// check the planned workspace against what exists. It only reads.
func (r *workspaceResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.eng == nil {
		return
	}
	var plan workspaceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	expired := !req.State.Raw.IsNull() && planExpired(ctx, req, resp)
	if !expired && !req.State.Raw.IsNull() && !plan.ID.IsUnknown() {
		paused, _ := req.Private.GetKey(ctx, privatePausedKey)
		planRunState(ctx, req, resp, string(paused) == "true")
	}
	if k := kindOf(&plan); k != nil {
		k.modifyPlan(ctx, r.eng, req, resp, plan)
	}
	planRestore(ctx, r.eng, req, resp, plan)
	planEgress(ctx, r.eng, req, resp, plan)
	planKeepsEndpoints(ctx, req, resp)
}

// ports returns the configured exposed ports without duplicates, in order.
func ports(m workspaceModel) []int {
	var out []int
	seen := map[int64]bool{}
	if m.ExposedPorts.IsNull() || m.ExposedPorts.IsUnknown() {
		return nil
	}
	for _, e := range m.ExposedPorts.Elements() {
		v, ok := e.(types.Int64)
		if !ok {
			continue
		}
		p := v.ValueInt64()
		if !seen[p] {
			seen[p] = true
			out = append(out, int(p))
		}
	}
	return out
}

// endpoints sets m.Endpoints from where the workspace's ports are reached
// (for a docker workspace, as the daemon reports them now).
func (r *workspaceResource) endpoints(ctx context.Context, w *workspace.Workspace, m *workspaceModel) error {
	l, err := endpointList(ctx, r.eng, w, ports(*m))
	if err == nil {
		m.Endpoints = l
	}
	return err
}

// endpointList is the endpoints attribute for the given exposed ports.
func endpointList(ctx context.Context, eng *workspace.Engine, w *workspace.Workspace, want []int) (types.List, error) {
	eps, err := eng.Endpoints(ctx, w, want)
	if err != nil {
		return types.List{}, err
	}
	objs := make([]attr.Value, 0, len(eps))
	for i, ep := range eps {
		httpURL, err := ep.URLFor("http")
		if err != nil {
			return types.List{}, err
		}
		wsURL, err := ep.URLFor("ws")
		if err != nil {
			return types.List{}, err
		}
		objs = append(objs, types.ObjectValueMust(endpointAttrTypes, map[string]attr.Value{
			"port": types.Int64Value(int64(want[i])), "host": types.StringValue(ep.Host), "host_port": types.Int64Value(int64(ep.Port)),
			"tls": types.BoolValue(ep.TLS), "url_http": types.StringValue(httpURL), "url_ws": types.StringValue(wsURL),
		}))
	}
	return types.ListValueMust(types.ObjectType{AttrTypes: endpointAttrTypes}, objs), nil
}

func (r *workspaceResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m workspaceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	k := kindOf(&m)
	if k == nil {
		resp.Diagnostics.AddError("Missing backend block", "sandbox_workspace needs exactly one of "+kindBlockNames()+".")
		return
	}
	ctx, cancel, timer := startOp(ctx, m.Timeouts, opCreate, workspaceTimeouts[opCreate].def, &resp.Diagnostics)
	defer cancel()
	defer timer.finish("Creating the workspace", &resp.Diagnostics)
	w := k.create(ctx, r.eng, m, req.Config, resp.Private, &resp.Diagnostics)
	if w != nil && resp.Diagnostics.HasError() {
		recordCreated(ctx, w, m, resp)
	}
	if w == nil || resp.Diagnostics.HasError() {
		return
	}
	// The policy is enforced before anything else runs in the workspace.
	if applyEgress(ctx, r.eng, w, &m, nil, &resp.Diagnostics); resp.Diagnostics.HasError() {
		recordCreated(ctx, w, m, resp)
		return
	}
	if !r.restoreWorkspace(ctx, w, m, req.Config, &resp.Diagnostics) {
		return // the workspace was destroyed again
	}
	if !r.waitReady(ctx, w, m, &resp.Diagnostics) {
		return // never ready: destroyed again
	}
	m.ID = types.StringValue(w.ID)
	m.Root = types.StringValue(w.Root)
	m.ContainerID = containerID(w)
	setRunState(w, &m)
	setExpiry(w, &m)
	if c, ok := k.(kindWithCreated); ok {
		c.created(ctx, r.eng, w, &m, &resp.Diagnostics)
	}
	if err := r.endpoints(ctx, w, &m); err != nil {
		addEngineError(&resp.Diagnostics, "Computing endpoints failed", err)
		recordCreated(ctx, w, m, resp)
		return
	}
	// A root owner that cannot be set still records the workspace, so the
	// failed apply leaves it tainted in state rather than untracked.
	applyRootOwner(ctx, w, &m, nil, &resp.Diagnostics)
	settle(ctx, r.eng, w, &m, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// setRunState sets running and started_at from what the backend reports.
func setRunState(w *workspace.Workspace, m *workspaceModel) {
	m.Running = types.BoolValue(w.Running)
	m.StartedAt = types.StringNull()
	if w.StartedAt != "" {
		m.StartedAt = types.StringValue(w.StartedAt)
	}
}

func (r *workspaceResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m workspaceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	w, err := r.eng.Open(ctx, m.ID.ValueString())
	if workspaceGone(err) {
		if k := kindOf(&m); k != nil && k.missing(ctx, r.eng, req.Private, m.ID.ValueString(), &resp.Diagnostics) {
			return
		}
		warnExpiredGone(m, &resp.Diagnostics)
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		addEngineAttributeError(&resp.Diagnostics, path.Root("id"), "Reading the workspace failed", err)
		return
	}
	m.ID = types.StringValue(w.ID)
	m.Root = types.StringValue(w.Root)
	m.ContainerID = containerID(w)
	setRunState(w, &m)
	setExpiry(w, &m)
	observeRunState(ctx, r.eng, w, &m)
	importing := len(configuredKinds(&m)) == 0
	if k := kindNamed(w.Kind); k != nil {
		if k.observe(ctx, r.eng, w, &m, &resp.Diagnostics); resp.Diagnostics.HasError() {
			return
		}
	}
	if readEgress(ctx, r.eng, w, &m, importing, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	if m.Users.IsNull() {
		m.Users = types.ListNull(types.ObjectType{AttrTypes: userAttrTypes})
	}
	if readRootOwner(ctx, w, &m, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	// A stopped container has no port bindings: its endpoints are known
	// again once the apply has started it. A paused one keeps them.
	// Recorded only while paused (an empty value removes the key): a
	// running workspace's private state stays as the create left it, so a
	// refresh that finds nothing changed changes nothing, and
	// `plan -refresh-only -detailed-exitcode` exits 0.
	var pausedFlag []byte
	if w.Paused {
		pausedFlag = []byte("true")
	}
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, privatePausedKey, pausedFlag)...)
	if w.Running || w.Paused {
		if err := r.endpoints(ctx, w, &m); err != nil {
			addEngineError(&resp.Diagnostics, "Computing endpoints failed", err)
			return
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *workspaceResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m workspaceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	env := map[string]string{}
	resp.Diagnostics.Append(m.Environment.ElementsAs(ctx, &env, false)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, timer := startOp(ctx, m.Timeouts, opUpdate, workspaceTimeouts[opUpdate].def, &resp.Diagnostics)
	defer cancel()
	defer timer.finish("Updating the workspace", &resp.Diagnostics)
	w, err := r.eng.Open(ctx, m.ID.ValueString())
	if err != nil {
		addEngineError(&resp.Diagnostics, "Opening the workspace failed", err)
		return
	}
	if bringUp(ctx, r.eng, w, m, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	if k := kindOf(&m); k != nil {
		if k.update(ctx, r.eng, req, w, &resp.Diagnostics); resp.Diagnostics.HasError() {
			return
		}
	}
	if err := w.SetEnvironment(ctx, env); err != nil {
		addEngineAttributeError(&resp.Diagnostics, path.Root("environment"), "Updating the workspace environment failed", err)
		return
	}
	var prior workspaceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if updateEgress(ctx, r.eng, w, &m, prior, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	if applyRootOwner(ctx, w, &m, &prior, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	m.ID = types.StringValue(w.ID)
	if m.RunState.ValueString() == workspace.RunStopped {
		// A stopped container has no port bindings: the endpoints stay
		// as last known.
		if m.Endpoints.IsUnknown() {
			m.Endpoints = prior.Endpoints
		}
	} else if err := r.endpoints(ctx, w, &m); err != nil {
		addEngineError(&resp.Diagnostics, "Computing endpoints failed", err)
		return
	}
	settle(ctx, r.eng, w, &m, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *workspaceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m workspaceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, timer := startOp(ctx, m.Timeouts, opDelete, workspaceTimeouts[opDelete].def, &resp.Diagnostics)
	defer cancel()
	defer timer.finish("Destroying the workspace", &resp.Diagnostics)
	err := r.eng.Destroy(ctx, m.ID.ValueString(), m.KeepOnDestroy.ValueBool())
	switch {
	case errors.Is(err, workspace.ErrNotOurs):
		resp.Diagnostics.AddWarning("Workspace directory left in place",
			err.Error()+"\n\nNothing was deleted; the workspace is removed from state.")
	case err != nil:
		addEngineError(&resp.Diagnostics, "Destroying the workspace failed", err)
	}
}

// absolutePathValidator requires an absolute POSIX path.
type absolutePathValidator struct{}

func (absolutePathValidator) Description(context.Context) string { return "must be an absolute path" }

func (v absolutePathValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (absolutePathValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	s := req.ConfigValue.ValueString()
	if !filepath.IsAbs(s) || filepath.Clean(s) != s {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid workspace root",
			fmt.Sprintf("root %q must be an absolute, clean path such as \"/srv/sandboxes/agent-1\" (use abspath() for a path relative to the module).", s))
	}
}

func containerID(w *workspace.Workspace) types.String {
	if w.ContainerID == "" {
		return types.StringNull()
	}
	return types.StringValue(w.ContainerID)
}
