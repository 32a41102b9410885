package provider

import (
	"context"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

var (
	_ resource.ResourceWithConfigure        = (*entryResource[entryModel, *entryModel])(nil)
	_ resource.ResourceWithImportState      = (*entryResource[entryModel, *entryModel])(nil)
	_ resource.ResourceWithModifyPlan       = (*entryResource[entryModel, *entryModel])(nil)
	_ resource.ResourceWithValidateConfig   = (*entryResource[entryModel, *entryModel])(nil)
	_ resource.ResourceWithConfigValidators = (*entryResource[entryModel, *entryModel])(nil)
	_ resource.ResourceWithUpgradeState     = (*entryResource[entryModel, *entryModel])(nil)
)

// entryResource is the one implementation behind the entry resources; k
// says which Python SDK entry it is.
type entryResource[M any, P entryModelPtr[M]] struct {
	k   entryType[P]
	eng *workspace.Engine
}

func (r *entryResource[M, P]) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + r.k.typeName()
}

func (r *entryResource[M, P]) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = r.k.schema()
}

func (r *entryResource[M, P]) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.eng = engineFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *entryResource[M, P]) ConfigValidators(context.Context) []resource.ConfigValidator {
	if v, ok := r.k.(entryConfigValidators); ok {
		return v.configValidators()
	}
	return nil
}

func (r *entryResource[M, P]) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	if v, ok := r.k.(entryRawValidator); ok {
		v.validateRaw(ctx, req.Config, &resp.Diagnostics)
		return
	}
	v, ok := r.k.(entryValidator[P])
	if !ok {
		return
	}
	var cfg M
	if resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...); resp.Diagnostics.HasError() {
		return
	}
	v.validate(&cfg, &resp.Diagnostics)
}

func (r *entryResource[M, P]) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	if u, ok := r.k.(entryUpgrader); ok {
		return u.upgraders()
	}
	return nil
}

// ModifyPlan checks what stands at the planned path, renders
// manifest_entry and lets the kind plan its computed attributes.
func (r *entryResource[M, P]) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.eng == nil {
		return
	}
	if req.Plan.Raw.IsNull() {
		warnTakenDestroy(ctx, req, resp)
		return
	}
	var taken *takenRecord
	if req.Private != nil {
		var done bool
		if taken, done = planTaken(ctx, req, resp); done || resp.Diagnostics.HasError() {
			return
		}
	}
	owner, defaulted := planOwner(ctx, r.eng, req, resp)
	var planned types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("owner"), &planned)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if s, ok := r.k.(entryStatic); ok && !req.State.Raw.IsNull() && req.Plan.Raw.Equal(req.State.Raw) && owner.Equal(planned) && s.static(ctx, req.Plan) {
		// Nothing changed and nothing outside can change the plan: the
		// path checks skip an unchanged entry too, and Read has just
		// compared the workspace with state.
		return
	}
	var m, cfg M
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if defaulted {
		P(&m).common().Owner = owner
	}
	if taken == nil {
		// (A replacement of a taken entry clears its path at apply.)
		if checkEntryPath(ctx, r.eng, req, resp, r.k.makes()); resp.Diagnostics.HasError() {
			return
		}
	}
	if checkOwner(ctx, req, resp); resp.Diagnostics.HasError() {
		return
	}
	if checkOwnerName(ctx, r.eng, req, resp); resp.Diagnostics.HasError() {
		return
	}
	if _, tree := r.k.(treeCopier); tree && taken == nil {
		if checkFreshCopy(ctx, r.eng, req, resp); resp.Diagnostics.HasError() {
			return
		}
	}
	if err := r.k.render(&m, &cfg); err != nil {
		addEngineError(&resp.Diagnostics, "Cannot render manifest_entry", err)
		return
	}
	if r.k.plan(ctx, r.eng, req, resp, &m, &cfg); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &m)...)
}

func (r *entryResource[M, P]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.save(ctx, req.Plan, req.Config, nil, resp.Private, &resp.State, &resp.Diagnostics)
}

func (r *entryResource[M, P]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.save(ctx, req.Plan, req.Config, &req.State, resp.Private, &resp.State, &resp.Diagnostics)
}

// save is Create (prior nil) and Update: it opens the workspace, lets the
// kind apply the planned entry, and records it in state.
func (r *entryResource[M, P]) save(ctx context.Context, plan tfsdk.Plan, config tfsdk.Config, prior *tfsdk.State,
	private privateState, state *tfsdk.State, diags *diag.Diagnostics) {
	var m, cfg M
	diags.Append(plan.Get(ctx, &m)...)
	diags.Append(config.Get(ctx, &cfg)...)
	a := entryApply[P]{m: &m, cfg: &cfg, eng: r.eng, private: private}
	if prior != nil {
		var p M
		diags.Append(prior.Get(ctx, &p)...)
		a.prior = &p
	}
	if diags.HasError() {
		return
	}
	op := opCreate
	if prior != nil {
		op = opUpdate
	}
	ctx, cancel, timer := startEntryOp(ctx, r.k, a.m, op, diags)
	defer cancel()
	defer timer.finish("The "+op+" of sandbox_"+r.k.typeName(), diags)
	e := a.m.common()
	var err error
	if a.rel, err = normalizedPath(e.Path); err != nil {
		addEngineAttributeError(diags, path.Root("path"), "Invalid path", err)
		return
	}
	if a.ws, err = r.eng.Open(ctx, e.WorkspaceID.ValueString()); err != nil {
		addEngineAttributeError(diags, path.Root("workspace_id"), "Cannot open workspace "+e.WorkspaceID.ValueString(), err)
		return
	}
	done, ok := wakeForEntry(ctx, r.eng, a.ws, diags)
	if !ok {
		return
	}
	defer done()
	if applyDefaultOwner(ctx, a.ws, e, a.cfg.common(), private, diags); diags.HasError() {
		return
	}
	if a.meta, err = e.meta(); err != nil {
		addEngineAttributeError(diags, path.Root("permissions"), "Invalid permissions", err)
		return
	}
	if diags.Append(recordTaken(ctx, private, "", nil)...); diags.HasError() {
		return
	}
	if _, tree := r.k.(treeCopier); tree && prior == nil {
		// The files may have appeared since the plan.
		if addFreshCopyError(diags, a.ws.CheckFreshTree(ctx, a.rel), a.rel); diags.HasError() {
			return
		}
	}
	if r.k.apply(ctx, a, diags); diags.HasError() {
		return
	}
	if recordEphemeral(ctx, a.ws, a.rel, e.Ephemeral.ValueBool(), a.prior != nil && a.prior.common().Ephemeral.ValueBool(), diags); diags.HasError() {
		return
	}
	// An update keeps the id and absolute path the plan kept from state
	// (an id written before ids named their workspace stays as it is).
	if e.ID.IsUnknown() {
		e.ID = types.StringValue(entryID(e.WorkspaceID.ValueString(), a.rel))
	}
	if e.AbsolutePath.IsUnknown() {
		e.AbsolutePath = types.StringValue(a.ws.AbsPath(a.rel))
	}
	diags.Append(state.Set(ctx, a.m)...)
}

// Read observes the entry in its workspace. A vanished workspace, a
// missing entry or something else standing at its path removes it from
// state (planned for creation); a stopped container keeps state as it is.
func (r *entryResource[M, P]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m M
	if resp.Diagnostics.Append(req.State.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	prior := m // framework values are immutable: a changed attribute is a new value
	ctx, cancel, timer := startEntryOp(ctx, r.k, P(&m), opRead, &resp.Diagnostics)
	defer cancel()
	defer timer.finish("Reading sandbox_"+r.k.typeName(), &resp.Diagnostics)
	e := P(&m).common()
	rel, err := normalizedPath(e.Path)
	if err != nil {
		addEngineError(&resp.Diagnostics, "Invalid path in state", err)
		return
	}
	ws, err := r.eng.Open(ctx, e.WorkspaceID.ValueString())
	var st workspace.EntryState
	if err == nil {
		st, err = r.k.observe(ctx, ws, &m, rel)
	}
	var taken *workspace.Taken
	if err == nil && !holds(st, r.k.makes()) {
		taken, err = ws.Taken(ctx, rel, r.k.makes())
	}
	switch {
	case workspaceGone(err) || (err == nil && taken == nil && !holds(st, r.k.makes())):
		resp.State.RemoveResource(ctx)
		return
	case taken != nil:
		// Something else took the path inside the workspace: the entry
		// stays in state and the plan replaces it (see takenKey).
		resp.Diagnostics.Append(recordTaken(ctx, resp.Private, e.WorkspaceID.ValueString(), taken)...)
		return
	case workspaceStopped(err):
		return // nothing can be read in a stopped container: state stays as it was
	case err != nil:
		addEngineError(&resp.Diagnostics, "Reading "+rel+" failed", err)
		return
	}
	if resp.Diagnostics.Append(recordTaken(ctx, resp.Private, "", nil)...); resp.Diagnostics.HasError() {
		return
	}
	e.observeMeta(st)
	if e.Ephemeral.IsNull() {
		e.Ephemeral = types.BoolValue(false)
	}
	e.AbsolutePath = types.StringValue(ws.AbsPath(rel))
	_ = r.k.render(&m, nil) // inputs come from state; an error leaves it unknown
	if t, ok := any(P(&m)).(interface {
		recordSeen(context.Context, privateState) diag.Diagnostics
	}); ok {
		resp.Diagnostics.Append(t.recordSeen(ctx, resp.Private)...)
	}
	if reflect.DeepEqual(prior, m) {
		return // resp.State already holds req.State; setting it again costs a conversion of every attribute
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// holds reports whether st is an entry of kind k.
func holds(st workspace.EntryState, k workspace.PathType) bool {
	if k == workspace.PathFile {
		return st.Exists && st.Info.IsRegular
	}
	return st.Exists && st.Info.IsDir
}

// Delete removes what the entry wrote; a vanished workspace has nothing
// left to remove.
func (r *entryResource[M, P]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m M
	if resp.Diagnostics.Append(req.State.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, timer := startEntryOp(ctx, r.k, P(&m), opDelete, &resp.Diagnostics)
	defer cancel()
	defer timer.finish("Removing sandbox_"+r.k.typeName(), &resp.Diagnostics)
	e := P(&m).common()
	rel, err := normalizedPath(e.Path)
	if err != nil {
		addEngineError(&resp.Diagnostics, "Invalid path in state", err)
		return
	}
	ws, err := r.eng.Open(ctx, e.WorkspaceID.ValueString())
	if workspaceGone(err) {
		return
	}
	warning := ""
	if err == nil {
		restore, werr := r.eng.Wake(ctx, ws)
		if workspaceGone(werr) {
			return // ended for good (an expired Sandbox): nothing left to remove
		}
		if werr != nil {
			addEngineAttributeError(&resp.Diagnostics, path.Root("workspace_id"), "Starting the stopped workspace for the write failed", werr)
			return
		}
		defer func() {
			if err := restore(context.WithoutCancel(ctx)); err != nil {
				addEngineAttributeError(&resp.Diagnostics, path.Root("workspace_id"), "Putting the workspace back in its run state failed", err)
			}
		}()
	}
	if err == nil && takenFor(ctx, req.Private, e.WorkspaceID.ValueString(), rel) != nil {
		// Its path was taken in the workspace (the plan said what this
		// removes): clear what stands there now, unless the entry is back.
		var t *workspace.Taken
		if t, err = ws.Taken(ctx, rel, r.k.makes()); err == nil && t != nil {
			if err = ws.ClearTaken(ctx, rel, r.k.makes()); err != nil {
				addEngineError(&resp.Diagnostics, "Clearing "+rel+" failed", err)
			}
			return
		}
	}
	if err == nil {
		warning, err = r.k.remove(ctx, ws, &m, rel, req.Private)
	}
	if err == nil && e.Ephemeral.ValueBool() {
		forgetEphemeral(ctx, ws, workspace.EntryOwner(rel), &resp.Diagnostics)
	}
	if err != nil {
		addEngineError(&resp.Diagnostics, "Removing "+rel+" failed", err)
		return
	}
	if warning != "" {
		resp.Diagnostics.AddWarning("Directory left in place", warning)
	}
}

func (r *entryResource[M, P]) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importEntry(ctx, req, resp)
}
