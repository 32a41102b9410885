package workspace

import (
	"context"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/gitrepo"
)

// GitRepo is a GitRepo entry to materialize (design/sdk-model.md §2.6): fetching happens
// on the host, so the workspace needs no git.
type GitRepo struct {
	// Source is the remote and its credentials.
	Source gitrepo.Source
	// Ref is the tag, branch or (abbreviated) commit configured.
	Ref string
	// Commit is the 40-hex commit the plan resolved Ref to, or "" when the
	// plan could not (an abbreviated commit no branch or tag points to).
	Commit string
	// Subpath is the validated subpath (sandbox.ValidateGitSubpath), ""
	// for the repository root.
	Subpath string
}

// ResolveGitRef resolves a ref against the remote without fetching (see
// gitrepo.Resolve).
func (e *Engine) ResolveGitRef(ctx context.Context, s gitrepo.Source, ref string) (string, error) {
	return gitrepo.Resolve(ctx, s, ref)
}

// GitCheckout is what SyncGitRepo put in the workspace.
type GitCheckout struct {
	// Tree is the copied tree.
	Tree TreeSummary
	// Commit is the 40-hex commit checked out.
	Commit string
}

// SyncGitRepo fetches g into a temporary host directory, makes the
// directory rel hold exactly its files (as SyncLocalDir: changed files
// copied, others removed, unchanged ones untouched, streamed to
// containers), then removes the temporary directory.
func (w *Workspace) SyncGitRepo(ctx context.Context, rel string, g GitRepo, m Meta) (GitCheckout, error) {
	co, err := gitrepo.Fetch(ctx, g.Source, g.Ref, g.Commit, g.Subpath)
	if err != nil {
		return GitCheckout{}, err
	}
	defer func() { _ = co.Close() }()
	tree, err := w.syncHostTree(ctx, rel, co.Dir, m)
	if err != nil {
		return GitCheckout{}, err
	}
	return GitCheckout{Tree: tree, Commit: co.Commit}, nil
}
