package provider

import (
	"context"
	"errors"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/gitrepo"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/redact"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// NewGitRepoResource returns the sandbox_git_repo resource: the Python SDK's
// GitRepo entry, a checkout of a Git repository fetched on the host.
func NewGitRepoResource() resource.Resource {
	return &entryResource[gitRepoModel, *gitRepoModel]{k: gitRepoEntry{}}
}

// gitRepoEntry is sandbox_git_repo: the ref is resolved at plan time, the
// commit fetched on the host and its tree synchronised into the workspace.
type gitRepoEntry struct{}

func (gitRepoEntry) typeName() string          { return "git_repo" }
func (gitRepoEntry) makes() workspace.PathType { return workspace.PathDir }
func (gitRepoEntry) copiesTree()               {}

// upgraders: version 0 recorded `files` and `file_permissions` always.
func (gitRepoEntry) upgraders() map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{0: upgradeTree("sandbox_git_repo", "")}
}

type gitRepoModel struct {
	entryModel
	Host         types.String `tfsdk:"host"`
	Repo         types.String `tfsdk:"repo"`
	Ref          types.String `tfsdk:"ref"`
	Subpath      types.String `tfsdk:"subpath"`
	URL          types.String `tfsdk:"url"`
	TokenWO      types.String `tfsdk:"token_wo"`
	UsernameWO   types.String `tfsdk:"username_wo"`
	PasswordWO   types.String `tfsdk:"password_wo"`
	SSHKeyWO     types.String `tfsdk:"ssh_private_key_wo"`
	CredsVersion types.Int64  `tfsdk:"credentials_wo_version"`
	Commit       types.String `tfsdk:"commit"`
	treeModel
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

func writeOnly(desc string) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, WriteOnly: true, MarkdownDescription: desc +
		" Write-only: never stored in state or shown in plans, and removed from every error message."}
}

func (gitRepoEntry) schema() schema.Schema {
	attrs := entryAttributes("checkout")
	attrs["host"] = schema.StringAttribute{
		Optional: true, Computed: true, Default: stringdefault.StaticString("github.com"),
		MarkdownDescription: "Git host, the Python SDK's `GitRepo.host`; the clone URL is `https://<host>/<repo>.git` unless `url` is set. Default `\"github.com\"`.",
	}
	attrs["repo"] = schema.StringAttribute{
		Required:            true,
		MarkdownDescription: "Repository path on the host, the Python SDK's `GitRepo.repo` (`\"owner/name\"`, or any path the host serves).",
	}
	attrs["ref"] = schema.StringAttribute{
		Required: true,
		MarkdownDescription: "Branch, tag or commit, the Python SDK's `GitRepo.ref`; 7 to 40 hex digits are a commit. Branches " +
			"and tags are resolved against the remote at plan time, so a moved branch shows as an update; an unknown ref fails " +
			"the plan. [Resolution](#refs).",
	}
	attrs["subpath"] = schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "Directory of the repository to copy instead of its root, the Python SDK's `GitRepo.subpath`; " +
			"null, `\"\"` and `\".\"` mean the root. Blank, absolute, Windows and `..` paths fail at plan time " +
			"(`git_subpath_error`); one that is not a directory of the commit fails the apply. [Rules](#subpath).",
	}
	attrs["url"] = schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "Clone URL overriding `https://<host>/<repo>.git`: `https://`, `http://`, `git://`, `file://`, `ssh://` or " +
			"scp-like `user@host:path`. Must not carry a password: use `password_wo` or `token_wo`. Shown in errors without its userinfo. " +
			"A `file://` URL must lie under the working directory or an `extra_path_grants` entry " +
			"([local repositories](#repositories-on-this-machine)).",
	}
	attrs["token_wo"] = writeOnly("HTTP(S) access token, sent as the basic-auth password (user `x-access-token`). Conflicts with `username_wo`/`password_wo` and `ssh_private_key_wo`.")
	attrs["username_wo"] = writeOnly("HTTP(S) basic-auth user name, with `password_wo`.")
	attrs["password_wo"] = writeOnly("HTTP(S) basic-auth password, with `username_wo`.")
	attrs["ssh_private_key_wo"] = writeOnly("Unencrypted PEM private key (OpenSSH, PKCS#1 or PKCS#8) for an ssh URL; the user is the URL's (default `git`). The server's " +
		"host key is checked against the `known_hosts` file named by `SSH_KNOWN_HOSTS`, else `~/.ssh/known_hosts`.")
	attrs["credentials_wo_version"] = schema.Int64Attribute{
		Optional:            true,
		MarkdownDescription: "Any number; change it when the credentials change. Credentials are only used to fetch; changing them alone re-fetches but copies nothing that is unchanged.",
	}
	attrs["commit"] = schema.StringAttribute{
		Computed: true,
		MarkdownDescription: "The 40-hex commit checked out. Known at plan time for branches, tags and full commits (resolved against " +
			"the remote, no fetch); for an abbreviated commit that no branch or tag points to it is known after the apply, " +
			"which fetches the history to find it.",
	}
	treeAttributes(attrs, "Unknown in a plan that changes `commit`.",
		"`\"0755\"` for files Git records as executable, else `\"0644\"`.")
	attrs["manifest_entry"] = manifestEntryAttribute("`{\"type\": \"git_repo\", ..., \"host\", \"repo\", \"ref\", \"subpath\"}`, " +
		"no credentials. A `url` of the form `https://<host>/<repo>.git` (what the Python SDK clones) renders as its host " +
		"and repo; any other `url` gives null")
	return schema.Schema{
		Version: 1,
		MarkdownDescription: "A checkout of a Git repository in a workspace; follows the Python SDK's `GitRepo` entry, except that " +
			"fetching happens on the host (go-git: no git is needed on the host or in the image). The commit is fetched into " +
			"a temporary host directory (depth 1 where the server allows, else a full fetch), its tree (or `subpath`) " +
			"written there, then streamed into the workspace like `sandbox_local_dir`: changed files copied, files the " +
			"commit does not have removed, unchanged files left alone; the chmod applies to the destination " +
			"directory, `owner` and `group` to it and every file and directory of the copy. **Symlinks** in the copied tree are refused, whether they point inside or outside the checkout " +
			"(nothing is followed or recreated, as `sandbox_local_dir`); submodules are left out. Errors name the attribute " +
			"and the URL without credentials: unknown ref (`ref`), unreachable server (`url`, else `repo`), authentication " +
			"failure (the credential attribute set, else `url`/`repo`), " +
			"subpath missing in the commit (`subpath`). Destroy removes the files this resource wrote. " +
			"Import ID: `<workspace_id>/<path>` (then set `repo` and `ref`; the next apply fetches and re-copies). " +
			"`timeouts`: create and update (fetch and copy) 20 minutes, read and delete 10; a checkout cut short leaves " +
			"no partial file.",
		Attributes: attrs,
		Blocks:     map[string]schema.Block{"timeouts": timeoutsBlock(context.Background(), gitRepoEntry{}.timeoutDefaults())},
	}
}

// source builds the remote from m, with credentials from cfg (the
// configuration: write-only values are null in plans and state).
func (m *gitRepoModel) source(cfg *gitRepoModel) gitrepo.Source {
	u := m.URL.ValueString()
	if m.URL.IsNull() {
		u = gitrepo.DefaultURL(m.Host.ValueString(), m.Repo.ValueString())
	}
	s := gitrepo.Source{URL: u}
	if cfg != nil {
		s.Credentials = gitrepo.Credentials{Token: cfg.TokenWO.ValueString(), Username: cfg.UsernameWO.ValueString(),
			Password: cfg.PasswordWO.ValueString(), SSHPrivateKey: cfg.SSHKeyWO.ValueString()}
	}
	return s
}

// maskGitSecrets masks every form of the configured credentials in the
// provider's log lines of this operation.
func maskGitSecrets(ctx context.Context, m, cfg *gitRepoModel) context.Context {
	return tflog.MaskLogStrings(ctx, redact.AllSecretForms(m.source(cfg).Credentials.Secrets()...)...)
}

func (m *gitRepoModel) subpathPtr() *string {
	if m.Subpath.IsNull() {
		return nil
	}
	s := m.Subpath.ValueString()
	return &s
}

func (m *gitRepoModel) setManifestEntry() error {
	v, err := m.manifestEntry("git_repo", func() (map[string]any, []string, error) {
		if m.Host.IsUnknown() || m.Repo.IsUnknown() || m.Ref.IsUnknown() || m.Subpath.IsUnknown() {
			return nil, nil, nil
		}
		if m.URL.IsUnknown() {
			return nil, nil, nil
		}
		host, repo, ok := sdkGitSource(m.Host.ValueString(), m.Repo.ValueString(), m.URL.ValueStringPointer())
		if !ok {
			return nil, nil, errNoManifestEntry
		}
		f := map[string]any{"host": host, "repo": repo, "ref": m.Ref.ValueString(), "subpath": nil}
		if sp := m.subpathPtr(); sp != nil {
			f["subpath"] = *sp
		}
		return f, nil, nil
	})
	m.ManifestEntry = v
	return err
}

func (gitRepoEntry) validate(m *gitRepoModel, diags *diag.Diagnostics) {
	if !m.Subpath.IsUnknown() && !m.Repo.IsUnknown() {
		if _, err := gitrepo.ValidateGitSubpath(m.Repo.ValueString(), m.subpathPtr()); err != nil {
			addEngineAttributeError(diags, path.Root("subpath"), "Invalid subpath", err)
		}
	}
	if !m.URL.IsNull() && !m.URL.IsUnknown() {
		if problem := urlProblem(m.URL.ValueString()); problem != "" {
			diags.AddAttributeError(path.Root("url"), "Invalid url", problem)
		}
	}
	set := func(v types.String) bool { return !v.IsNull() }
	if set(m.TokenWO) && (set(m.UsernameWO) || set(m.PasswordWO) || set(m.SSHKeyWO)) {
		diags.AddAttributeError(path.Root("token_wo"), "Conflicting credentials",
			"token_wo cannot be combined with username_wo, password_wo or ssh_private_key_wo.")
	}
	if set(m.SSHKeyWO) && (set(m.UsernameWO) || set(m.PasswordWO)) {
		diags.AddAttributeError(path.Root("ssh_private_key_wo"), "Conflicting credentials",
			"ssh_private_key_wo is for ssh URLs; username_wo and password_wo are for HTTP(S).")
	}
}

// urlProblem reports what makes a clone URL unusable, or "".
func urlProblem(u string) string {
	lower := strings.ToLower(u)
	for _, scheme := range []string{"https://", "http://", "git://", "file://", "ssh://"} {
		if strings.HasPrefix(lower, scheme) {
			host := u[len(scheme):]
			if i := strings.IndexAny(host, "/"); i >= 0 {
				host = host[:i]
			}
			if at := strings.LastIndex(host, "@"); at >= 0 && strings.Contains(host[:at], ":") {
				return "url must not carry a password (it would be stored in state): use password_wo or token_wo."
			}
			return ""
		}
	}
	if at := strings.Index(u, "@"); at > 0 && strings.Contains(u[at:], ":") && !strings.Contains(u, "://") {
		return "" // scp-like user@host:path
	}
	return "url must start with https://, http://, git://, file:// or ssh://, or be scp-like user@host:path."
}

// gitErrorPath picks the attribute a fetch or resolve error is about.
func gitErrorPath(m *gitRepoModel, err error) path.Path {
	switch {
	case errors.Is(err, gitrepo.ErrUnknownRef), errors.Is(err, gitrepo.ErrMoved):
		return path.Root("ref")
	case errors.Is(err, gitrepo.ErrSubpathMissing):
		return path.Root("subpath")
	case errors.Is(err, gitrepo.ErrAuth):
		for _, p := range []struct {
			v    types.String
			name string
		}{{m.TokenWO, "token_wo"}, {m.PasswordWO, "password_wo"}, {m.SSHKeyWO, "ssh_private_key_wo"}} {
			if !p.v.IsNull() {
				return path.Root(p.name)
			}
		}
	}
	if !m.URL.IsNull() {
		return path.Root("url")
	}
	return path.Root("repo")
}

// gitResolveSummary is the heading of a failure to resolve ref: the
// confinement of a local repository (a file:// URL or a host path outside
// the working directory) is its own reason, not an unknown ref.
func gitResolveSummary(ref string, err error) string {
	var se *sandbox.Error
	if errors.As(err, &se) && se.Context["reason"] == sandbox.ReasonOutsideBaseDir {
		return "Local repository outside the working directory"
	}
	return "Cannot resolve ref " + ref
}

// treeKey is the private state key holding the tree the last apply copied
// (a workspace.TreeSummary as JSON): plans that keep the commit plan it,
// so drift in the workspace shows without fetching again.
const treeKey = "tree"
