package provider

import (
	"context"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/gitrepo"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The plan and apply half of sandbox_git_repo (schema in git_repo_resource.go).

func (gitRepoEntry) render(m, _ *gitRepoModel) error { return m.setManifestEntry() }

// plan resolves the ref against the remote (no fetch) and plans the tree:
// the one last copied when the commit and subpath stay, else unknown.
func (gitRepoEntry) plan(ctx context.Context, eng *workspace.Engine, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, m, cfg *gitRepoModel) {
	ctx = maskGitSecrets(ctx, m, cfg)
	if m.Host.IsUnknown() || m.Repo.IsUnknown() || m.Ref.IsUnknown() || m.URL.IsUnknown() || m.Subpath.IsUnknown() {
		m.Commit = types.StringUnknown()
		m.unknownSummary()
		return
	}
	// The subpath is checked before anything touches the network.
	subpath, err := gitrepo.ValidateGitSubpath(m.Repo.ValueString(), m.subpathPtr())
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
	src := m.source(cfg)
	ref := m.Ref.ValueString()
	samePlace := prior != nil && prior.source(nil).URL == src.URL && prior.Ref.ValueString() == ref
	var commit string
	if samePlace && gitrepo.LooksLikeCommitRef(ref) && strings.HasPrefix(prior.Commit.ValueString(), strings.ToLower(ref)) {
		commit = prior.Commit.ValueString() // a commit never moves
	} else if commit, err = eng.ResolveGitRef(ctx, src, ref); err != nil {
		addEngineAttributeError(&resp.Diagnostics, gitErrorPath(cfg, err), gitResolveSummary(ref, err), err)
		return
	}
	m.Commit = types.StringValue(commit)
	if commit == "" {
		m.Commit = types.StringUnknown()
	}
	priorSub := ""
	if prior != nil {
		priorSub, _ = gitrepo.ValidateGitSubpath(prior.Repo.ValueString(), prior.subpathPtr())
	}
	if prior != nil && commit != "" && prior.Commit.ValueString() == commit && priorSub == subpath {
		if t := getTree(ctx, req.Private, treeKey); t != nil {
			m.setSummary(ctx, *t)
			m.planChanges(ctx, req, *t)
		} else {
			m.keepTree(&prior.treeModel)
		}
	} else {
		m.unknownSummary()
	}
}

// apply fetches and copies the planned checkout, with credentials from
// the configuration.
func (gitRepoEntry) apply(ctx context.Context, a entryApply[*gitRepoModel], diags *diag.Diagnostics) {
	m, cfg := a.m, a.cfg
	ctx = maskGitSecrets(ctx, m, cfg)
	subpath, err := gitrepo.ValidateGitSubpath(m.Repo.ValueString(), m.subpathPtr())
	if err != nil {
		addEngineAttributeError(diags, path.Root("subpath"), "Invalid subpath", err)
		return
	}
	g := workspace.GitRepo{Source: m.source(cfg), Ref: m.Ref.ValueString(), Subpath: subpath}
	if !m.Commit.IsUnknown() {
		g.Commit = m.Commit.ValueString()
	}
	co, err := a.ws.SyncGitRepo(ctx, a.rel, g, a.meta)
	if err != nil {
		addEngineAttributeError(diags, gitErrorPath(cfg, err), "Checking out "+m.Ref.ValueString()+" into "+a.rel+" failed", err)
		return
	}
	m.Commit = types.StringValue(co.Commit)
	diags.Append(m.recordApplied(ctx, a.private, co.Tree)...)
	diags.Append(setTree(ctx, a.private, treeKey, &co.Tree)...)
}

func (gitRepoEntry) observe(ctx context.Context, ws *workspace.Workspace, m *gitRepoModel, rel string) (workspace.EntryState, error) {
	return m.observeTree(ctx, ws, rel)
}

func (gitRepoEntry) remove(ctx context.Context, ws *workspace.Workspace, m *gitRepoModel, rel string, private privateGetter) (string, error) {
	return m.removeTree(ctx, ws, rel, private)
}
