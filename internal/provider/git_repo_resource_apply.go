package provider

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// The plan and apply half of sandbox_git_repo (schema in git_repo_resource.go).

func (r *gitRepoResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.eng == nil {
		return
	}
	var m, cfg gitRepoModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if checkEntryPath(ctx, r.eng, req, resp, workspace.KindDir); resp.Diagnostics.HasError() {
		return
	}
	if checkFreshCopy(ctx, r.eng, req, resp); resp.Diagnostics.HasError() {
		return
	}
	ctx = maskGitSecrets(ctx, &m, &cfg)
	if err := m.setManifestEntry(); err != nil {
		addEngineError(&resp.Diagnostics, "Cannot render manifest_entry", err)
		return
	}
	if m.Host.IsUnknown() || m.Repo.IsUnknown() || m.Ref.IsUnknown() || m.URL.IsUnknown() || m.Subpath.IsUnknown() {
		m.Commit = types.StringUnknown()
		m.unknownSummary()
		resp.Diagnostics.Append(resp.Plan.Set(ctx, &m)...)
		return
	}
	// The subpath is checked before anything touches the network.
	subpath, err := sandbox.ValidateGitSubpath(m.Repo.ValueString(), m.subpathPtr())
	if err != nil {
		addEngineAttributeError(&resp.Diagnostics, path.Root("subpath"), "Invalid subpath", err)
		return
	}
	var prior *gitRepoModel
	if !req.State.Raw.IsNull() {
		prior = &gitRepoModel{}
		resp.Diagnostics.Append(req.State.Get(ctx, prior)...)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	src := m.source(&cfg)
	ref := m.Ref.ValueString()
	samePlace := prior != nil && prior.source(nil).URL == src.URL && prior.Ref.ValueString() == ref
	var commit string
	if samePlace && sandbox.LooksLikeCommitRef(ref) && strings.HasPrefix(prior.Commit.ValueString(), strings.ToLower(ref)) {
		commit = prior.Commit.ValueString() // a commit never moves
	} else if commit, err = r.eng.ResolveGitRef(ctx, src, ref); err != nil {
		addEngineAttributeError(&resp.Diagnostics, gitErrorPath(&cfg, err), "Cannot resolve ref "+ref, err)
		return
	}
	m.Commit = types.StringValue(commit)
	if commit == "" {
		m.Commit = types.StringUnknown()
	}
	priorSub := ""
	if prior != nil {
		priorSub, _ = sandbox.ValidateGitSubpath(prior.Repo.ValueString(), prior.subpathPtr())
	}
	if prior != nil && commit != "" && prior.Commit.ValueString() == commit && priorSub == subpath {
		if t := plannedTree(ctx, req.Private); t != nil {
			m.setSummary(ctx, *t)
		} else {
			m.Files, m.FileModes, m.FileCount, m.TreeSHA256 = prior.Files, prior.FileModes, prior.FileCount, prior.TreeSHA256
		}
	} else {
		m.unknownSummary()
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &m)...)
}

type privateState interface {
	privateSetter
	privateGetter
}

// apply fetches and copies the checkout planned in plan, with credentials
// from config, and sets the state.
func (r *gitRepoResource) apply(ctx context.Context, plan, config tfsdk.Plan, priv privateState, state *tfsdk.State, diags *diag.Diagnostics) {
	var m, cfg gitRepoModel
	diags.Append(plan.Get(ctx, &m)...)
	diags.Append(config.Get(ctx, &cfg)...)
	if diags.HasError() {
		return
	}
	ctx = maskGitSecrets(ctx, &m, &cfg)
	rel, err := normalizedPath(m.Path)
	if err != nil {
		addEngineAttributeError(diags, path.Root("path"), "Invalid path", err)
		return
	}
	meta, err := m.meta()
	if err != nil {
		addEngineAttributeError(diags, path.Root("permissions"), "Invalid permissions", err)
		return
	}
	subpath, err := sandbox.ValidateGitSubpath(m.Repo.ValueString(), m.subpathPtr())
	if err != nil {
		addEngineAttributeError(diags, path.Root("subpath"), "Invalid subpath", err)
		return
	}
	g := workspace.GitRepo{Source: m.source(&cfg), Ref: m.Ref.ValueString(), Subpath: subpath}
	if !m.Commit.IsUnknown() {
		g.Commit = m.Commit.ValueString()
	}
	tree, abs, commit, err := r.eng.SyncGitRepo(ctx, m.WorkspaceID.ValueString(), rel, g, meta)
	if err != nil {
		addEngineAttributeError(diags, gitErrorPath(&cfg, err), "Checking out "+m.Ref.ValueString()+" into "+rel+" failed", err)
		return
	}
	m.Commit = types.StringValue(commit)
	m.setSummary(ctx, tree)
	m.ID = types.StringValue(entryID(m.WorkspaceID.ValueString(), rel))
	m.AbsolutePath = types.StringValue(abs)
	diags.Append(recordWritten(ctx, priv, m.Files)...)
	if b, err := json.Marshal(tree); err == nil {
		diags.Append(priv.SetKey(ctx, treeKey, b)...)
	}
	diags.Append(state.Set(ctx, &m)...)
}

func (r *gitRepoResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if checkFreshAtApply(ctx, r.eng, req.Plan, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	r.apply(ctx, req.Plan, tfsdk.Plan(req.Config), resp.Private, &resp.State, &resp.Diagnostics)
}

func (r *gitRepoResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.apply(ctx, req.Plan, tfsdk.Plan(req.Config), resp.Private, &resp.State, &resp.Diagnostics)
}

func (r *gitRepoResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m gitRepoModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	rel, err := normalizedPath(m.Path)
	if err != nil {
		addEngineError(&resp.Diagnostics, "Invalid path in state", err)
		return
	}
	st, summary, err := r.eng.ReadLocalDir(ctx, m.WorkspaceID.ValueString(), rel)
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
	m.setSummary(ctx, summary)
	_ = m.setManifestEntry() // inputs come from state; an error leaves it unknown
	if w, err := r.eng.Open(ctx, m.WorkspaceID.ValueString()); err == nil {
		m.AbsolutePath = types.StringValue(w.AbsPath(rel))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *gitRepoResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m gitRepoModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	deleteCopiedTree(ctx, r.eng, req, resp, m.WorkspaceID.ValueString(), m.Path, m.Files)
}

func (r *gitRepoResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importEntry(ctx, req, resp)
}
