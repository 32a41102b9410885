package workspace

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/gitrepo"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
)

// ManifestInputs are what a manifest's entries need beyond its JSON, keyed
// by normalized entry path: for git_repo entries, a clone URL overriding the
// Python SDK's https://<host>/<repo>.git and credentials; the tree each
// git_repo entry copied at the last apply, so a plan that keeps its commit
// knows its files without fetching.
type ManifestInputs struct {
	// GitURLs overrides clone URLs by entry path.
	GitURLs map[string]string
	// GitCredentials authenticate git_repo entries by entry path.
	GitCredentials map[string]gitrepo.Credentials
	// GitApplied is what the last apply checked out, by entry path.
	GitApplied map[string]GitApplied
	// MountCredentials are mount entries' secret fields (MountSecretFields)
	// by entry path, then by the Python SDK's field name.
	MountCredentials map[string]map[string]string
	// MountApplied is what the last apply mounted, by entry path.
	MountApplied map[string]MountApplied
	// CredentialsVersion is the version of the credentials given; a mount
	// made with another version is mounted again.
	CredentialsVersion string
}

// GitApplied is one git_repo entry as the last apply checked it out.
type GitApplied struct {
	URL     string      `json:"url"`
	Commit  string      `json:"commit"`
	Subpath string      `json:"subpath"`
	Tree    TreeSummary `json:"tree"`
}

// gitPlan resolves the git_repo entry pe against its remote (no fetch) and
// fills pe.Git; the tree is the one last applied when the URL, commit and
// subpath stay, else unknown until the apply fetches it.
func (e *Engine) gitPlan(ctx context.Context, pe *PlannedEntry, in ManifestInputs) error {
	host, _ := pe.Entry.StringField("host")
	repo, _ := pe.Entry.StringField("repo")
	ref, _ := pe.Entry.StringField("ref")
	var sub *string
	if s, ok := pe.Entry.StringField("subpath"); ok {
		sub = &s
	}
	subpath, err := gitrepo.ValidateGitSubpath(repo, sub)
	if err != nil {
		return err
	}
	src := gitrepo.Source{URL: gitrepo.DefaultURL(host, repo), Credentials: in.GitCredentials[pe.Path]}
	if u, ok := in.GitURLs[pe.Path]; ok {
		src.URL = u
	}
	prior, hasPrior := in.GitApplied[pe.Path]
	var commit string
	if hasPrior && prior.URL == src.URL && gitrepo.LooksLikeCommitRef(ref) && strings.HasPrefix(prior.Commit, strings.ToLower(ref)) {
		commit = prior.Commit // a commit never moves
	} else if commit, err = e.ResolveGitRef(ctx, src, ref); err != nil {
		return err
	}
	pe.Git = &GitRepo{Source: src, Ref: ref, Commit: commit, Subpath: subpath}
	if hasPrior && commit != "" && prior.URL == src.URL && prior.Commit == commit && prior.Subpath == subpath {
		t := prior.Tree
		pe.Tree, pe.SHA256 = &t, t.SHA256
	}
	return nil
}

// applyGit fetches and copies the planned checkout of pe, recording the
// commit and tree in pe.
func (w *Workspace) applyGit(ctx context.Context, pe *PlannedEntry) error {
	if pe.Git == nil {
		return fmt.Errorf("git_repo entry %q was not planned with its remote", pe.Path)
	}
	co, err := w.SyncGitRepo(ctx, pe.Path, *pe.Git, pe.Meta())
	if err != nil {
		return err
	}
	pe.Git.Commit = co.Commit
	t := co.Tree
	pe.Tree, pe.SHA256 = &t, t.SHA256
	return nil
}

// GitApplied returns what the plan's git_repo entries checked out, by entry
// path, after ApplyManifest (entries not fetched yet are left out).
func (p *ManifestPlan) GitApplied() map[string]GitApplied {
	out := map[string]GitApplied{}
	for _, pe := range p.Entries {
		if pe.Git != nil && pe.Tree != nil && pe.Git.Commit != "" {
			out[pe.Path] = GitApplied{URL: pe.Git.Source.URL, Commit: pe.Git.Commit, Subpath: pe.Git.Subpath, Tree: *pe.Tree}
		}
	}
	return out
}

// Secrets returns every credential the inputs carry, for redaction and log
// masking.
func (in ManifestInputs) Secrets() []string {
	var out []string
	for _, c := range in.GitCredentials {
		out = append(out, c.Secrets()...)
	}
	for _, c := range in.MountCredentials {
		for _, v := range c {
			if v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}

// EntryError is a failure of one manifest entry, naming its path.
type EntryError struct {
	Path string
	// Type is the entry's type, when the message names it.
	Type string
	Err  error
}

// Error names the entry.
func (e *EntryError) Error() string {
	if e.Type != "" {
		return fmt.Sprintf("entry %q (%s): %v", e.Path, e.Type, e.Err)
	}
	return fmt.Sprintf("entry %q: %v", e.Path, e.Err)
}

// Unwrap returns the cause.
func (e *EntryError) Unwrap() error { return e.Err }

// checkGitEntry checks a git_repo entry without touching the network: its
// subpath (reason git_subpath_error).
func checkGitEntry(rel string, e *manifest.Entry) error {
	repo, _ := e.StringField("repo")
	if s, ok := e.StringField("subpath"); ok {
		if _, err := gitrepo.ValidateGitSubpath(repo, &s); err != nil {
			return &EntryError{Path: rel, Err: err}
		}
	}
	return nil
}
