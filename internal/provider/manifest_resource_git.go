package provider

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/gitrepo"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/redact"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// The git_repo half of sandbox_manifest: clone URL overrides and
// write-only credentials keyed by entry path, and the checkouts the last
// apply made (private state), so a plan that keeps a commit knows its files.

// gitAppliedKey is the private state key holding the last apply's
// checkouts (map of entry path to workspace.GitApplied, as JSON).
const gitAppliedKey = "git"

// gitCredentialsModel is one entry of git_credentials_wo.
type gitCredentialsModel struct {
	Token    types.String `tfsdk:"token"`
	Username types.String `tfsdk:"username"`
	Password types.String `tfsdk:"password"`
	SSHKey   types.String `tfsdk:"ssh_private_key"`
}

func manifestGitAttributes(attrs map[string]schema.Attribute) {
	attrs["git_urls"] = schema.MapAttribute{
		Optional: true, ElementType: types.StringType,
		MarkdownDescription: "Clone URL per `git_repo` entry path, overriding the Python SDK's `https://<host>/<repo>.git`, with " +
			"the rules of `sandbox_git_repo.url` (no password in it; a `file://` URL is confined as host sources are). " +
			"A key that names no `git_repo` entry fails the plan.",
		Validators: []validator.Map{gitURLsValidator{}},
	}
	wo := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, WriteOnly: true, MarkdownDescription: desc}
	}
	attrs["git_credentials_wo"] = schema.MapNestedAttribute{
		Optional: true, WriteOnly: true,
		MarkdownDescription: "Credentials per `git_repo` entry path, as `sandbox_git_repo`'s: `token` (HTTP(S), alone), " +
			"`username` with `password` (HTTP(S)), or `ssh_private_key` (ssh URLs). Write-only: never stored in state or " +
			"shown in plans, and removed from every error message. A key that names no `git_repo` entry fails the plan.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"token":           wo("HTTP(S) access token, sent as the basic-auth password."),
			"username":        wo("HTTP(S) basic-auth user name, with `password`."),
			"password":        wo("HTTP(S) basic-auth password, with `username`."),
			"ssh_private_key": wo("Unencrypted PEM private key for an ssh URL."),
		}},
	}
	attrs["credentials_wo_version"] = schema.Int64Attribute{
		Optional: true,
		MarkdownDescription: "Any number; change it when `git_credentials_wo` or `mount_credentials_wo` changes. Changing " +
			"this alone applies the manifest again, copying nothing that is unchanged and mounting every mount entry again " +
			"with the new credentials.",
	}
}

// manifestInputs builds what the manifest's git_repo entries need: URL
// overrides from m, credentials from cfg (nil when the configuration is not
// available, as in Read and Delete), the last checkouts from private. Keys
// naming no git_repo entry, and conflicting credentials, are reported on
// their attribute.
func manifestInputs(ctx context.Context, man *manifest.Manifest, m, cfg *manifestResourceModel, private privateGetter) (workspace.ManifestInputs, diag.Diagnostics) {
	var diags diag.Diagnostics
	in := workspace.ManifestInputs{GitURLs: map[string]string{}, GitCredentials: map[string]gitrepo.Credentials{}}
	gitPaths := map[string]bool{}
	if list, err := man.Entries.CheckedEntries(); err == nil {
		for _, ep := range list {
			if ep.Entry.Type == "git_repo" {
				gitPaths[ep.Path] = true
			}
		}
	}
	entryKey := func(attr, key string) (string, bool) {
		rel, err := posix.ValidateEntryPath(key)
		if err != nil || !gitPaths[rel] {
			diags.AddAttributeError(path.Root(attr).AtMapKey(key), "Not a git_repo entry",
				"the key "+sandbox.QuoteText(key)+" names no git_repo entry of manifest_json; use the entry's path as it appears in the manifest")
			return "", false
		}
		return rel, true
	}
	var urls map[string]string
	diags.Append(m.GitURLs.ElementsAs(ctx, &urls, false)...)
	for k, u := range urls {
		if rel, ok := entryKey("git_urls", k); ok {
			in.GitURLs[rel] = u
		}
	}
	if cfg != nil && !cfg.GitCredentialsWO.IsNull() && !cfg.GitCredentialsWO.IsUnknown() {
		var creds map[string]gitCredentialsModel
		diags.Append(cfg.GitCredentialsWO.ElementsAs(ctx, &creds, false)...)
		for k, c := range creds {
			rel, ok := entryKey("git_credentials_wo", k)
			if !ok {
				continue
			}
			set := func(v types.String) bool { return !v.IsNull() && !v.IsUnknown() }
			p := path.Root("git_credentials_wo").AtMapKey(k)
			switch {
			case set(c.Token) && (set(c.Username) || set(c.Password) || set(c.SSHKey)):
				diags.AddAttributeError(p.AtName("token"), "Conflicting credentials", "token cannot be combined with username, password or ssh_private_key.")
			case set(c.SSHKey) && (set(c.Username) || set(c.Password)):
				diags.AddAttributeError(p.AtName("ssh_private_key"), "Conflicting credentials", "ssh_private_key is for ssh URLs; username and password are for HTTP(S).")
			}
			in.GitCredentials[rel] = gitrepo.Credentials{Token: c.Token.ValueString(), Username: c.Username.ValueString(),
				Password: c.Password.ValueString(), SSHPrivateKey: c.SSHKey.ValueString()}
		}
	}
	if private != nil {
		if b, d := private.GetKey(ctx, gitAppliedKey); !d.HasError() && len(b) > 0 {
			_ = json.Unmarshal(b, &in.GitApplied) // an unreadable record only costs a fetch
		}
	}
	return in, diags
}

// maskManifestSecrets masks every form of the inputs' credentials in the
// provider's log lines of this operation.
func maskManifestSecrets(ctx context.Context, in workspace.ManifestInputs) context.Context {
	return tflog.MaskLogStrings(ctx, redact.AllSecretForms(in.Secrets()...)...)
}

// recordGitApplied keeps the plan's checkouts in private state.
func recordGitApplied(ctx context.Context, p privateSetter, plan *workspace.ManifestPlan) diag.Diagnostics {
	b, err := json.Marshal(plan.GitApplied())
	if err != nil {
		return nil
	}
	return p.SetKey(ctx, gitAppliedKey, b)
}

// manifestErrorPath picks the attribute a manifest planning or apply error
// is about: a git_repo entry's credentials when the remote refused them, its
// git_urls value when that URL is refused or cannot be reached, else
// manifest_json.
func manifestErrorPath(ctx context.Context, err error, in workspace.ManifestInputs, m *manifestResourceModel) path.Path {
	var ee *workspace.EntryError
	if !errors.As(err, &ee) {
		return path.Root("manifest_json")
	}
	if errors.Is(err, gitrepo.ErrAuth) {
		if _, ok := in.GitCredentials[ee.Path]; ok {
			return path.Root("git_credentials_wo")
		}
	}
	if _, ok := in.GitURLs[ee.Path]; ok && !errors.Is(err, gitrepo.ErrUnknownRef) && !errors.Is(err, gitrepo.ErrSubpathMissing) {
		var urls map[string]string
		_ = m.GitURLs.ElementsAs(ctx, &urls, false)
		for k := range urls {
			if rel, e := posix.ValidateEntryPath(k); e == nil && rel == ee.Path {
				return path.Root("git_urls").AtMapKey(k)
			}
		}
	}
	return path.Root("manifest_json")
}

// gitURLsValidator checks every clone URL of git_urls as sandbox_git_repo.url.
type gitURLsValidator struct{}

func (gitURLsValidator) Description(context.Context) string {
	return "every value must be a clone URL without a password"
}

func (v gitURLsValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (gitURLsValidator) ValidateMap(ctx context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	for k, v := range req.ConfigValue.Elements() {
		s, ok := v.(types.String)
		if !ok || s.IsNull() || s.IsUnknown() {
			continue
		}
		if problem := urlProblem(s.ValueString()); problem != "" {
			resp.Diagnostics.AddAttributeError(req.Path.AtMapKey(k), "Invalid url", problem)
		}
	}
}

// keepCommits gives the git_repo entries of an observed result the commits
// in state: a checkout in the workspace does not say which commit it is.
func keepCommits(ctx context.Context, m *manifestResourceModel, observed workspace.ManifestResult) {
	var prior map[string]struct {
		Type        types.String `tfsdk:"type"`
		SHA256      types.String `tfsdk:"sha256"`
		Permissions types.String `tfsdk:"permissions"`
		Group       types.String `tfsdk:"group"`
		Commit      types.String `tfsdk:"commit"`
		Mounted     types.Bool   `tfsdk:"mounted"`
	}
	if d := m.Entries.ElementsAs(ctx, &prior, true); d.HasError() {
		return
	}
	for p, e := range observed.Entries {
		if e.Type == "git_repo" {
			e.Commit = prior[p].Commit.ValueString()
			observed.Entries[p] = e
		}
	}
}

// fullyKnown reports whether a map and every value in it, nested object
// attributes included, are known.
func fullyKnown(m types.Map) bool {
	if m.IsUnknown() {
		return false
	}
	for _, v := range m.Elements() {
		if v.IsUnknown() {
			return false
		}
		if o, ok := v.(types.Object); ok {
			for _, a := range o.Attributes() {
				if a.IsUnknown() {
					return false
				}
			}
		}
	}
	return true
}
