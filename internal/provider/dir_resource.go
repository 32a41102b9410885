package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

var (
	_ resource.ResourceWithConfigure   = (*dirResource)(nil)
	_ resource.ResourceWithImportState = (*dirResource)(nil)
)

// NewDirResource returns the sandbox_dir resource: the Python SDK's Dir entry.
func NewDirResource() resource.Resource { return &dirResource{} }

type dirResource struct {
	eng *workspace.Engine
}

func (r *dirResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_dir"
}

func (r *dirResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A directory in a workspace: the Python SDK's `Dir` entry (`mkdir -p`, then chgrp and chmod). " +
			"Destroy removes the directory when it is empty; one holding files written by others is left in place with a warning.",
		Attributes: dirAttributes(),
	}
}

func dirAttributes() map[string]schema.Attribute {
	attrs := entryAttributes("directory")
	attrs["manifest_entry"] = manifestEntryAttribute("`{\"type\": \"dir\", ..., \"children\": {}}`")
	return attrs
}

// ModifyPlan renders manifest_entry from the planned values.
func (r *dirResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var m entryModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if checkEntryPath(ctx, r.eng, req, resp, workspace.KindDir); resp.Diagnostics.HasError() {
		return
	}
	if err := m.setDirManifestEntry(); err != nil {
		addEngineError(&resp.Diagnostics, "Cannot render manifest_entry", err)
		return
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &m)...)
}

func (r *dirResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.eng = engineFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *dirResource) apply(ctx context.Context, m *entryModel) error {
	rel, err := normalizedPath(m.Path)
	if err != nil {
		return err
	}
	meta, err := m.meta()
	if err != nil {
		return err
	}
	abs, err := r.eng.ApplyDir(ctx, m.WorkspaceID.ValueString(), rel, meta)
	if err != nil {
		return err
	}
	m.ID = types.StringValue(entryID(m.WorkspaceID.ValueString(), rel))
	m.AbsolutePath = types.StringValue(abs)
	return nil
}

func (r *dirResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.save(ctx, req.Plan, &resp.State, &resp.Diagnostics, "Creating")
}

// save applies the planned directory and records it in state (Create and
// Update do the same: mkdir -p, then the metadata).
func (r *dirResource) save(ctx context.Context, plan tfsdk.Plan, state *tfsdk.State, diags *diag.Diagnostics, verb string) {
	var m entryModel
	diags.Append(plan.Get(ctx, &m)...)
	if diags.HasError() {
		return
	}
	if err := r.apply(ctx, &m); err != nil {
		addEngineError(diags, verb+" directory "+m.Path.ValueString()+" failed", err)
		return
	}
	diags.Append(state.Set(ctx, &m)...)
}

func (r *dirResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m entryModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	rel, err := normalizedPath(m.Path)
	if err != nil {
		addEngineError(&resp.Diagnostics, "Invalid path in state", err)
		return
	}
	st, err := r.eng.Stat(ctx, m.WorkspaceID.ValueString(), rel, false)
	if workspaceGone(err) || (err == nil && (!st.Exists || !st.Info.IsDir)) {
		resp.State.RemoveResource(ctx)
		return
	}
	if workspaceStopped(err) {
		return // nothing can be read in a stopped container: state stays as it was
	}
	if err != nil {
		addEngineError(&resp.Diagnostics, "Reading directory "+rel+" failed", err)
		return
	}
	m.observeMeta(st)
	if m.Ephemeral.IsNull() {
		m.Ephemeral = types.BoolValue(false)
	}
	_ = m.setDirManifestEntry() // inputs come from state; an error leaves it unknown
	if w, err := r.eng.Open(ctx, m.WorkspaceID.ValueString()); err == nil {
		m.AbsolutePath = types.StringValue(w.AbsPath(rel))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *dirResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.save(ctx, req.Plan, &resp.State, &resp.Diagnostics, "Updating")
}

func (r *dirResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m entryModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	rel, err := normalizedPath(m.Path)
	if err != nil {
		addEngineError(&resp.Diagnostics, "Invalid path in state", err)
		return
	}
	warning, err := r.eng.RemoveDir(ctx, m.WorkspaceID.ValueString(), rel)
	if err != nil {
		addEngineError(&resp.Diagnostics, "Removing directory "+rel+" failed", err)
		return
	}
	if warning != "" {
		resp.Diagnostics.AddWarning("Directory left in place", warning)
	}
}

func (r *dirResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importEntry(ctx, req, resp)
}
