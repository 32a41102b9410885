package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// manifestEntryResultType is the element type of sandbox_manifest.entries.
var manifestEntryResultType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"type": types.StringType, "sha256": types.StringType, "permissions": types.StringType, "group": types.StringType,
	"commit": types.StringType, "mounted": types.BoolType,
}}

type manifestResourceModel struct {
	ID               types.String `tfsdk:"id"`
	WorkspaceID      types.String `tfsdk:"workspace_id"`
	ManifestJSON     types.String `tfsdk:"manifest_json"`
	Entries          types.Map    `tfsdk:"entries"`
	Files            types.Map    `tfsdk:"files"`
	GitURLs          types.Map    `tfsdk:"git_urls"`
	GitCredentialsWO types.Map    `tfsdk:"git_credentials_wo"`
	CredsVersion     types.Int64  `tfsdk:"credentials_wo_version"`
	// MountCredentialsWO is write-only: null except in the configuration.
	MountCredentialsWO types.Map `tfsdk:"mount_credentials_wo"`
}

func nullIfEmpty(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// setResult stores a manifest result in the model's computed attributes:
// the digests of pending entries (git_repo checkouts not fetched yet) and
// then the files as a whole are unknown.
func (m *manifestResourceModel) setResult(r workspace.ManifestResult) diag.Diagnostics {
	var diags diag.Diagnostics
	pending := map[string]bool{}
	for _, p := range r.Pending {
		pending[p] = true
	}
	entries := make(map[string]attr.Value, len(r.Entries))
	for p, e := range r.Entries {
		sum, commit := nullIfEmpty(e.SHA256), nullIfEmpty(e.Commit)
		if pending[p] {
			sum = types.StringUnknown()
		}
		if e.Type == "git_repo" && e.Commit == "" {
			commit = types.StringUnknown() // an abbreviated commit only a fetch can find
		}
		mounted := types.BoolNull()
		if e.IsMount {
			mounted = types.BoolValue(e.Mounted)
		}
		obj, d := types.ObjectValue(manifestEntryResultType.AttrTypes, map[string]attr.Value{
			"type": types.StringValue(e.Type), "sha256": sum,
			"permissions": nullIfEmpty(e.Permissions), "group": nullIfEmpty(e.Group), "commit": commit, "mounted": mounted,
		})
		diags.Append(d...)
		entries[p] = obj
	}
	em, d := types.MapValue(manifestEntryResultType, entries)
	diags.Append(d...)
	files := make(map[string]attr.Value, len(r.Files))
	for p, sum := range r.Files {
		files[p] = types.StringValue(sum)
	}
	fm, d := types.MapValue(types.StringType, files)
	diags.Append(d...)
	if len(pending) > 0 {
		fm = types.MapUnknown(types.StringType)
	}
	m.Entries, m.Files = em, fm
	return diags
}

// resultFiles returns the file paths of the planned or recorded files.
func (m *manifestResourceModel) resultFiles(ctx context.Context) ([]string, diag.Diagnostics) {
	var files map[string]string
	diags := m.Files.ElementsAs(ctx, &files, false)
	out := make([]string, 0, len(files))
	for f := range files {
		out = append(out, f)
	}
	sort.Strings(out)
	return out, diags
}

// parseManifest reads and checks manifest_json without touching the host.
func parseManifest(s string) (*manifest.Manifest, *workspace.ManifestPlan, error) {
	if err := workspace.CheckManifestSize([]byte(s)); err != nil {
		return nil, nil, err
	}
	m, err := manifest.Parse([]byte(s))
	if err != nil {
		return nil, nil, err
	}
	plan, err := workspace.CheckManifest(m)
	if err != nil {
		return nil, nil, err
	}
	return m, plan, nil
}

// refusedManifestParts names the parts of a manifest that belong to the
// workspace, which sandbox_manifest does not apply: each with the attribute
// of sandbox_workspace that takes it. They fail the plan rather than being
// dropped, so a manifest is never applied in part without saying so.
func refusedManifestParts(m *manifest.Manifest) []string {
	var out []string
	if n := len(m.Environment); n > 0 {
		out = append(out, fmt.Sprintf("the manifest sets environment (%d variables), which belongs to the workspace: set it "+
			"with sandbox_workspace.environment and remove it from the manifest", n))
	}
	if n := len(m.Users); n > 0 {
		out = append(out, fmt.Sprintf("the manifest sets users (%d), which belong to the workspace: declare them with "+
			"sandbox_workspace.users and remove them from the manifest", n))
	}
	if n := len(m.Groups); n > 0 {
		out = append(out, fmt.Sprintf("the manifest sets groups (%d), which belong to the workspace: declare them with "+
			"sandbox_workspace.groups and remove them from the manifest", n))
	}
	if n := len(m.ExtraPathGrants); n > 0 {
		out = append(out, fmt.Sprintf("the manifest sets extra_path_grants (%d), which belong to the workspace: grant the "+
			"paths with sandbox_workspace.extra_path_grants (host sources of entries are confined by the provider's "+
			"extra_path_grants) and remove them from the manifest", n))
	}
	return out
}

// manifestJSONValidator checks manifest_json at validate time: the Python SDK's
// manifest validation, then the entry path rules and supported types.
type manifestJSONValidator struct{}

func (manifestJSONValidator) Description(context.Context) string {
	return "must be a Python SDK manifest with valid entry paths"
}

func (v manifestJSONValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (manifestJSONValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if !json.Valid([]byte(req.ConfigValue.ValueString())) {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid manifest JSON", "manifest_json is not valid JSON.")
		return
	}
	m, _, err := parseManifest(req.ConfigValue.ValueString())
	if err != nil {
		addEngineAttributeError(&resp.Diagnostics, req.Path, "Invalid manifest", err)
		return
	}
	for _, part := range refusedManifestParts(m) {
		resp.Diagnostics.AddAttributeError(req.Path, "Manifest part not applied by sandbox_manifest", part+".")
	}
	if m.Root != manifest.DefaultRoot {
		resp.Diagnostics.AddAttributeWarning(req.Path, "Manifest root not applied",
			fmt.Sprintf("the manifest's root %q is not applied: entries land under the workspace's own root "+
				"(set the root with sandbox_workspace.root).", m.Root))
	}
}
