package workspace

import (
	"context"
	"fmt"
	"net/url"
	"strings"

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
	// Subpath is the validated subpath (gitrepo.ValidateGitSubpath), ""
	// for the repository root.
	Subpath string
}

// ResolveGitRef resolves a ref against the remote without fetching (see
// gitrepo.Resolve).
func (e *Engine) ResolveGitRef(ctx context.Context, s gitrepo.Source, ref string) (string, error) {
	if err := e.checkGitSource(s); err != nil {
		return "", err
	}
	return gitrepo.Resolve(ctx, s, ref)
}

// checkGitSource confines a repository on this machine (a file:// URL) as
// every host source is: under the working directory or a provider
// extra_path_grants entry, with no symlink on the way.
func (e *Engine) checkGitSource(s gitrepo.Source) error {
	if !strings.HasPrefix(strings.ToLower(s.URL), "file://") {
		return nil
	}
	u, err := url.Parse(s.URL)
	if err != nil {
		return fmt.Errorf("invalid file URL %q: %w", s.URL, err)
	}
	if _, err := e.HostSources().CheckDir(u.Path); err != nil {
		return fmt.Errorf("repository %s: %w", s.URL, err)
	}
	return nil
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
	if err := w.eng.checkGitSource(g.Source); err != nil {
		return GitCheckout{}, err
	}
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
