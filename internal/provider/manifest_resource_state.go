package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

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
}}

type manifestResourceModel struct {
	ID           types.String `tfsdk:"id"`
	WorkspaceID  types.String `tfsdk:"workspace_id"`
	ManifestJSON types.String `tfsdk:"manifest_json"`
	Entries      types.Map    `tfsdk:"entries"`
	Files        types.Map    `tfsdk:"files"`
}

func nullIfEmpty(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// setResult stores a manifest result in the model's computed attributes.
func (m *manifestResourceModel) setResult(r workspace.ManifestResult) diag.Diagnostics {
	var diags diag.Diagnostics
	entries := make(map[string]attr.Value, len(r.Entries))
	for p, e := range r.Entries {
		obj, d := types.ObjectValue(manifestEntryResultType.AttrTypes, map[string]attr.Value{
			"type": types.StringValue(e.Type), "sha256": nullIfEmpty(e.SHA256),
			"permissions": nullIfEmpty(e.Permissions), "group": nullIfEmpty(e.Group),
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

// ignoredManifestParts names the parts of a manifest sandbox_manifest does
// not apply (they belong to sandbox_workspace).
func ignoredManifestParts(m *manifest.Manifest) []string {
	var out []string
	if m.Root != manifest.DefaultRoot {
		out = append(out, fmt.Sprintf("root %q (entries land under the workspace's own root)", m.Root))
	}
	if len(m.Environment) > 0 {
		out = append(out, "environment (set it on sandbox_workspace)")
	}
	if len(m.Users) > 0 || len(m.Groups) > 0 {
		out = append(out, "users and groups (set them on sandbox_workspace)")
	}
	if len(m.ExtraPathGrants) > 0 {
		out = append(out, "extra_path_grants (host sources are confined by the provider's extra_path_grants)")
	}
	return out
}

// manifestJSONValidator checks manifest_json at validate time: the Python SDK's
// manifest validation, then the entry path rules and supported types.
type manifestJSONValidator struct{}

func (manifestJSONValidator) Description(context.Context) string {
	return "must be a Python SDK manifest whose entries are dir, file, local_file or local_dir with valid paths"
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
	if parts := ignoredManifestParts(m); len(parts) > 0 {
		resp.Diagnostics.AddAttributeWarning(req.Path, "Manifest parts not applied",
			"sandbox_manifest applies the manifest's entries only; these parts are ignored: "+strings.Join(parts, "; ")+".")
	}
}
