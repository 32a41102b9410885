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

// SyncGitRepo fetches g into a temporary host directory, makes the
// directory rel of workspace id hold exactly its files (as SyncLocalDir:
// changed files copied, others removed, unchanged ones untouched, streamed
// to containers), then removes the temporary directory. It returns the
// tree, the absolute path of rel and the commit checked out.
func (e *Engine) SyncGitRepo(ctx context.Context, id, rel string, g GitRepo, m Meta) (TreeSummary, string, string, error) {
	if _, err := e.Open(ctx, id); err != nil {
		return TreeSummary{}, "", "", err
	}
	co, err := gitrepo.Fetch(ctx, g.Source, g.Ref, g.Commit, g.Subpath)
	if err != nil {
		return TreeSummary{}, "", "", err
	}
	defer func() { _ = co.Close() }()
	tree, abs, err := e.SyncHostTree(ctx, id, rel, co.Dir, m, nil)
	if err != nil {
		return TreeSummary{}, "", "", err
	}
	return tree, abs, co.Commit, nil
}
