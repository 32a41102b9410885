package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

var _ datasource.DataSourceWithValidateConfig = (*manifestDataSource)(nil)

// NewManifestDataSource returns the sandbox_manifest data source: a
// workspace manifest rendered as the Python SDK's JSON.
func NewManifestDataSource() datasource.DataSource { return &manifestDataSource{} }

type manifestDataSource struct{}

// manifestUserModel is a user, as sandbox_workspace's users.
type manifestUserModel struct {
	Name types.String `tfsdk:"name"`
}

// manifestGroupModel is a group, as sandbox_workspace's groups.
type manifestGroupModel struct {
	Name  types.String        `tfsdk:"name"`
	Users []manifestUserModel `tfsdk:"users"`
}

type manifestDataModel struct {
	Root            types.String            `tfsdk:"root"`
	Entries         map[string]types.String `tfsdk:"entries"`
	Environment     types.Dynamic           `tfsdk:"environment"`
	Users           []manifestUserModel     `tfsdk:"users"`
	Groups          []manifestGroupModel    `tfsdk:"groups"`
	ExtraPathGrants []grantModel            `tfsdk:"extra_path_grants"`
	JSON            types.String            `tfsdk:"json"`
	JSONIndented    types.String            `tfsdk:"json_indented"`
	Review          types.String            `tfsdk:"review"`
}

// manifestUserAttrs is the object shape of a user, as sandbox_workspace's.
var manifestUserAttrs = map[string]schema.Attribute{
	"name": schema.StringAttribute{Required: true, MarkdownDescription: "User name (the Python SDK's `User.name`)."},
}

func (d *manifestDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_manifest"
}

func (d *manifestDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Renders a workspace manifest as the Python SDK's JSON — what the Python SDK's " +
			"`Manifest.model_dump_json()` writes and `Manifest.model_validate_json()` reads — for review in `terraform plan` " +
			"and for handing a workspace declared here to the Python SDK. Nothing is read from or written to a workspace. " +
			"Entries, environment variables and the rest are written in a stable order, so the same input always gives the " +
			"same bytes and plan diffs show only what changed.",
		Attributes: map[string]schema.Attribute{
			"root": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "The manifest's `root`: the workspace directory inside the sandbox. Default `/workspace` (the Python SDK's).",
			},
			"entries": schema.MapAttribute{
				Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Map of workspace-relative path (the manifest key) to the entry's Python SDK JSON, usually a " +
					"resource's `manifest_entry`; any Python SDK entry type is accepted. Bad keys fail with `absolute` or " +
					"`escape_root`, an unknown `type` naming the registered types, at plan time. [Details](#entries).",
			},
			"environment": schema.DynamicAttribute{
				Optional:            true,
				MarkdownDescription: manifestEnvDescription,
			},
			"users": schema.ListNestedAttribute{
				Optional: true,
				MarkdownDescription: "Sandbox users to provision (`users`), in order, in the shape of `sandbox_workspace.users`: " +
					"`[{ name = \"agent\" }]`.",
				NestedObject: schema.NestedAttributeObject{Attributes: manifestUserAttrs},
			},
			"groups": schema.ListNestedAttribute{
				Optional:            true,
				MarkdownDescription: "Sandbox groups to provision (`groups`), in order, in the shape of `sandbox_workspace.groups`.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{Required: true, MarkdownDescription: "Group name."},
					"users": schema.ListNestedAttribute{
						Optional: true, MarkdownDescription: "Members of the group, in order (`[{ name = \"agent\" }]`).",
						NestedObject: schema.NestedAttributeObject{Attributes: manifestUserAttrs},
					},
				}},
			},
			"extra_path_grants": schema.ListNestedAttribute{
				Optional: true,
				MarkdownDescription: "The manifest's `extra_path_grants` (the Python SDK's `SandboxPathGrant`: `path`, `read_only` " +
					"default false, `description`, `host_path` written only when set), validated with the Python SDK's messages.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"path":        schema.StringAttribute{Required: true, MarkdownDescription: "POSIX-absolute path inside the sandbox."},
					"read_only":   schema.BoolAttribute{Optional: true, MarkdownDescription: "Read-only grant. Default `false`."},
					"description": schema.StringAttribute{Optional: true, MarkdownDescription: "Free text."},
					"host_path":   schema.StringAttribute{Optional: true, MarkdownDescription: "Native host path backing `path`."},
				}},
			},
			"json": schema.StringAttribute{
				Computed: true, Sensitive: true,
				MarkdownDescription: "The manifest as compact JSON, byte for byte the Python SDK's `model_dump_json()`. Sensitive, " +
					"as it carries file content and environment values: read `review` in plans, and write `json` with " +
					"`local_sensitive_file`. [Format](#json).",
			},
			"json_indented": schema.StringAttribute{
				Computed: true, Sensitive: true,
				MarkdownDescription: "The same manifest indented with two spaces, for files people read. Sensitive, as `json`.",
			},
			"review": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "The manifest as `json_indented`, readable in plans: every `file` entry's `content` is " +
					"replaced by `(sensitive value, sha256 <hex>)` (the digest `sandbox_file` shows as `content_sha256`), " +
					"every environment value and every mount credential field by `(sensitive value)`; paths, types, modes, " +
					"groups, sources and refs are shown as they are. Not loadable by the Python SDK.",
			},
		},
	}
}

func (d *manifestDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var entries types.Map
	var env types.Dynamic
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("entries"), &entries)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("environment"), &env)...)
	if resp.Diagnostics.HasError() {
		return
	}
	manifestEnvironment(ctx, env, &resp.Diagnostics)
	if entries.IsNull() || entries.IsUnknown() {
		return
	}
	for k, v := range entries.Elements() {
		if s, ok := v.(types.String); ok && !s.IsUnknown() {
			checkManifestEntry(k, s, &resp.Diagnostics)
		}
	}
}

// errNullEntry explains an entries element that is null.
const errNullEntry = "entries[%s] is null. A resource's manifest_entry is null when the entry has no Python SDK JSON form: " +
	"a sandbox_file whose content is not UTF-8 text (content_base64 of binary data: copy it with source instead), or a " +
	"sandbox_git_repo whose url is not https://<host>/<repo>.git (the only URL the Python SDK clones), or a sandbox_local_dir " +
	"with keep_source_permissions = true (the Python SDK writes copied files 0644). Leave the entry out " +
	"of the manifest, or change that attribute."

// checkManifestEntry validates one entries element: the key with the Python SDK's
// path rules and the value with its entry validation (nested children
// included) and the filesystem's limits, reporting on entries[key].
func checkManifestEntry(key string, value types.String, diags *diag.Diagnostics) *manifest.Entry {
	at := path.Root("entries").AtMapKey(key)
	if value.IsNull() {
		diags.AddAttributeError(at, "Manifest entry "+sandbox.QuoteText(key)+" is null", fmt.Sprintf(errNullEntry, sandbox.QuoteText(key)))
		return nil
	}
	if _, err := posix.ValidateEntryPath(key); err != nil {
		addEngineAttributeError(diags, at, "Invalid manifest entry path", err)
		return nil
	}
	e, err := manifest.ParseEntry([]byte(value.ValueString()))
	if err != nil {
		if strings.Contains(value.ValueString(), `"content":null`) {
			err = fmt.Errorf("%w (a sandbox_file with content_wo renders its content as null, because the secret never "+
				"lands in state: leave it out of the manifest or give the content another way)", err)
		}
		addEngineAttributeError(diags, at, "Invalid manifest entry "+sandbox.QuoteText(key), err)
		return nil
	}
	if _, err := (manifest.Entries{{Key: key, Entry: e}}).CheckedEntries(); err != nil {
		addEngineAttributeError(diags, at, "Invalid manifest entry path", err)
		return nil
	}
	return e
}

func (d *manifestDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m manifestDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	man := manifest.New()
	if !m.Root.IsNull() {
		man.Root = m.Root.ValueString()
	}
	for _, k := range sortedKeys(m.Entries) {
		e := checkManifestEntry(k, m.Entries[k], &resp.Diagnostics)
		if e != nil {
			man.Entries = append(man.Entries, manifest.KeyedEntry{Key: k, Entry: e})
		}
	}
	man.Environment = manifestEnvironment(ctx, m.Environment, &resp.Diagnostics)
	man.Users = manifestUsers(m.Users)
	for _, g := range m.Groups {
		man.Groups = append(man.Groups, sandbox.Group{Name: g.Name.ValueString(), Users: manifestUsers(g.Users)})
	}
	for i, g := range m.ExtraPathGrants {
		grant, err := posix.NewPathGrant(g.Path.ValueString(), g.ReadOnly.ValueBool(), g.Description.ValueStringPointer(), g.HostPath.ValueStringPointer())
		if err != nil {
			addEngineAttributeError(&resp.Diagnostics, path.Root("extra_path_grants").AtListIndex(i), "Invalid extra path grant", err)
			continue
		}
		man.ExtraPathGrants = append(man.ExtraPathGrants, grant)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	compact, err := man.JSON()
	var indented, review []byte
	if err == nil {
		indented, err = man.IndentedJSON()
	}
	if err == nil {
		review, err = man.Review(mount.AuthorityFields).IndentedJSON()
	}
	m.JSON, m.JSONIndented, m.Review = types.StringValue(string(compact)), types.StringValue(string(indented)), types.StringValue(string(review))
	if err != nil {
		resp.Diagnostics.AddError("Rendering the manifest failed", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// manifestUsers converts user objects, never returning nil (the Python SDK
// writes an empty list).
func manifestUsers(list []manifestUserModel) []sandbox.User {
	out := []sandbox.User{}
	for _, u := range list {
		out = append(out, sandbox.User{Name: u.Name.ValueString()})
	}
	return out
}
