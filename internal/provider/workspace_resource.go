package provider

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// LocalUsersGroupsMessage is the seed's refusal of users and groups on the
// unix-local backend (SPEC §6.3).
const LocalUsersGroupsMessage = "UnixLocalSandboxSession does not support manifest users or groups because provisioning would run on the host machine"

var (
	_ resource.ResourceWithConfigure      = (*workspaceResource)(nil)
	_ resource.ResourceWithImportState    = (*workspaceResource)(nil)
	_ resource.ResourceWithValidateConfig = (*workspaceResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*workspaceResource)(nil)
)

// NewWorkspaceResource returns the sandbox_workspace resource.
func NewWorkspaceResource() resource.Resource { return &workspaceResource{} }

type workspaceResource struct {
	eng *workspace.Engine
}

type workspaceModel struct {
	ID            types.String `tfsdk:"id"`
	Root          types.String `tfsdk:"root"`
	Local         types.Object `tfsdk:"local"`
	KeepOnDestroy types.Bool   `tfsdk:"keep_on_destroy"`
	Environment   types.Map    `tfsdk:"environment"`
	Users         types.List   `tfsdk:"users"`
	Groups        types.List   `tfsdk:"groups"`
	ExposedPorts  types.List   `tfsdk:"exposed_ports"`
	Endpoints     types.List   `tfsdk:"endpoints"`
}

var endpointAttrTypes = map[string]attr.Type{
	"port": types.Int64Type, "host": types.StringType, "host_port": types.Int64Type,
	"tls": types.BoolType, "url_http": types.StringType, "url_ws": types.StringType,
}

var userAttrTypes = map[string]attr.Type{"name": types.StringType}

func (r *workspaceResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_workspace"
}

func (r *workspaceResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	userAttrs := map[string]schema.Attribute{
		"name": schema.StringAttribute{Required: true, MarkdownDescription: "User name (the seed's `User.name`)."},
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A sandbox workspace: a root directory that entries (`sandbox_dir`, `sandbox_file`, " +
			"`sandbox_local_dir`, ...) fill. The `local {}` block selects the local backend: a host directory. `id` is new on " +
			"every creation, so entries are replaced with their workspace. A workspace whose directory vanished is planned " +
			"for re-creation. Import ID: the workspace `id`, or the absolute root directory of an existing local workspace " +
			"(never `/`, a directory holding Terraform's working directory or the provider's `local_base_dir`, or one " +
			"overlapping another workspace). An imported workspace is kept on destroy until an apply records " +
			"`keep_on_destroy` from the configuration.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Workspace id, a UUID generated at creation.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"root": schema.StringAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "Absolute workspace root. Local backend: the host directory, default `<local_base_dir>/<id>`. " +
					"Creating a workspace in an existing non-empty directory is refused, so nothing already there is lost. " +
					"Changing it replaces the workspace.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{absolutePathValidator{}},
			},
			"keep_on_destroy": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
				MarkdownDescription: "When `true`, destroy forgets the workspace but leaves its directory and everything in " +
					"it. Default `false`: destroy removes the directory.",
			},
			"environment": schema.MapAttribute{
				Optional:    true,
				ElementType: types.StringType,
				MarkdownDescription: "Environment variables of the workspace (the seed's manifest `environment`), name to " +
					"value, for commands run in it.",
			},
			"users": schema.ListNestedAttribute{
				Optional: true,
				MarkdownDescription: "Users to provision (the seed's manifest `users`). Not supported by the local " +
					"backend, which refuses them at plan time with the seed's message, since provisioning would run on the host.",
				NestedObject: schema.NestedAttributeObject{Attributes: userAttrs},
			},
			"groups": schema.ListNestedAttribute{
				Optional:            true,
				MarkdownDescription: "Groups to provision with their members (the seed's manifest `groups`). Not supported by the local backend.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{Required: true, MarkdownDescription: "Group name."},
					"users": schema.ListNestedAttribute{
						Optional:            true,
						MarkdownDescription: "Members of the group.",
						NestedObject:        schema.NestedAttributeObject{Attributes: userAttrs},
					},
				}},
			},
			"exposed_ports": schema.ListAttribute{
				Optional:    true,
				ElementType: types.Int64Type,
				MarkdownDescription: "TCP ports (1-65535) to expose from the workspace; duplicates are dropped, order kept " +
					"(the seed's `exposed_ports`). Each gets an entry in `endpoints`.",
				Validators: []validator.List{listvalidator.ValueInt64sAre(int64validator.Between(1, 65535))},
			},
			"endpoints": schema.ListNestedAttribute{
				Computed: true,
				MarkdownDescription: "One object per exposed port: `port`, `host` (`127.0.0.1` on the local backend), " +
					"`host_port` (the port reachable on `host`; on the local backend the port itself), `tls` (`false`), " +
					"`url_http` and `url_ws` (the seed's `ExposedPortEndpoint.url_for`).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"port":      schema.Int64Attribute{Computed: true, MarkdownDescription: "The exposed port in the workspace."},
					"host":      schema.StringAttribute{Computed: true, MarkdownDescription: "Host to reach it on."},
					"host_port": schema.Int64Attribute{Computed: true, MarkdownDescription: "Port to reach it on at `host`."},
					"tls":       schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the endpoint uses TLS."},
					"url_http":  schema.StringAttribute{Computed: true, MarkdownDescription: "`http://host:port/` (seed `url_for(\"http\")`)."},
					"url_ws":    schema.StringAttribute{Computed: true, MarkdownDescription: "`ws://host:port/` (seed `url_for(\"ws\")`)."},
				}},
			},
		},
		Blocks: map[string]schema.Block{
			"local": schema.SingleNestedBlock{
				MarkdownDescription: "Selects the local backend: the workspace is a directory on the machine running " +
					"Terraform. Written as an empty block, `local {}`.",
				PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplace()},
			},
		},
	}
}

func (r *workspaceResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.eng = engineFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *workspaceResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m workspaceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if m.Local.IsNull() {
		resp.Diagnostics.AddError("Missing backend block",
			"sandbox_workspace needs a block selecting its backend: write `local {}` for a directory on this machine.")
	}
	if !m.Local.IsNull() {
		for _, a := range []string{"users", "groups"} {
			var v types.List
			resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(a), &v)...)
			if !v.IsNull() && (v.IsUnknown() || len(v.Elements()) > 0) {
				resp.Diagnostics.AddAttributeError(path.Root(a), "Users and groups need a Docker workspace", LocalUsersGroupsMessage)
			}
		}
	}
}

// ModifyPlan refuses, at plan time, a root that could not be a workspace
// without putting other data at risk (see workspace.Engine.CheckNewLocalRoot).
// It only reads the disk.
func (r *workspaceResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.eng == nil {
		return
	}
	var plan workspaceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || plan.Root.IsUnknown() || plan.Root.IsNull() {
		return
	}
	if req.State.Raw.IsNull() || !plan.ID.IsUnknown() {
		var err error
		if req.State.Raw.IsNull() {
			err = r.eng.CheckNewLocalRoot(plan.Root.ValueString())
		} else {
			err = r.eng.CheckLocalRoot(plan.Root.ValueString(), plan.ID.ValueString())
		}
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("root"), "Unusable workspace root", err.Error())
		}
	} else {
		// Replacing: the new workspace is created after the old one is gone.
		if err := r.eng.CheckLocalRoot(plan.Root.ValueString(), ""); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("root"), "Unusable workspace root", err.Error())
		}
	}
}

func (r *workspaceResource) endpoints(m *workspaceModel) error {
	var ports []int64
	if !m.ExposedPorts.IsNull() && !m.ExposedPorts.IsUnknown() {
		for _, e := range m.ExposedPorts.Elements() {
			ports = append(ports, e.(types.Int64).ValueInt64())
		}
	}
	seen := map[int64]bool{}
	var objs []attr.Value
	for _, p := range ports {
		if seen[p] {
			continue
		}
		seen[p] = true
		ep := sandbox.ExposedPortEndpoint{Host: "127.0.0.1", Port: int(p)}
		httpURL, err := ep.URLFor("http")
		if err != nil {
			return err
		}
		wsURL, err := ep.URLFor("ws")
		if err != nil {
			return err
		}
		objs = append(objs, types.ObjectValueMust(endpointAttrTypes, map[string]attr.Value{
			"port": types.Int64Value(p), "host": types.StringValue(ep.Host), "host_port": types.Int64Value(p),
			"tls": types.BoolValue(false), "url_http": types.StringValue(httpURL), "url_ws": types.StringValue(wsURL),
		}))
	}
	m.Endpoints = types.ListValueMust(types.ObjectType{AttrTypes: endpointAttrTypes}, objs)
	return nil
}

func (r *workspaceResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m workspaceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	env := map[string]string{}
	resp.Diagnostics.Append(m.Environment.ElementsAs(ctx, &env, false)...)
	if resp.Diagnostics.HasError() {
		return
	}
	w, err := r.eng.CreateLocal(ctx, workspace.LocalSpec{Root: m.Root.ValueString(), Environment: env})
	if err != nil {
		addEngineAttributeError(&resp.Diagnostics, path.Root("root"), "Creating the workspace failed", err)
		return
	}
	m.ID = types.StringValue(w.ID)
	m.Root = types.StringValue(w.Root)
	if err := r.endpoints(&m); err != nil {
		addEngineError(&resp.Diagnostics, "Computing endpoints failed", err)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *workspaceResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m workspaceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	w, err := r.eng.Open(ctx, m.ID.ValueString())
	if workspaceGone(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		addEngineError(&resp.Diagnostics, "Reading the workspace failed", err)
		return
	}
	m.Root = types.StringValue(w.Root)
	if m.Local.IsNull() && w.Kind == "local" {
		m.Local = types.ObjectValueMust(map[string]attr.Type{}, map[string]attr.Value{})
	}
	if m.Users.IsNull() {
		m.Users = types.ListNull(types.ObjectType{AttrTypes: userAttrTypes})
	}
	if err := r.endpoints(&m); err != nil {
		addEngineError(&resp.Diagnostics, "Computing endpoints failed", err)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *workspaceResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m workspaceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	env := map[string]string{}
	resp.Diagnostics.Append(m.Environment.ElementsAs(ctx, &env, false)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.eng.SetEnvironment(m.ID.ValueString(), env); err != nil {
		addEngineError(&resp.Diagnostics, "Updating the workspace environment failed", err)
		return
	}
	if err := r.endpoints(&m); err != nil {
		addEngineError(&resp.Diagnostics, "Computing endpoints failed", err)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *workspaceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m workspaceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.eng.Destroy(ctx, m.ID.ValueString(), m.KeepOnDestroy.ValueBool()); err != nil {
		addEngineError(&resp.Diagnostics, "Destroying the workspace failed", err)
	}
}

func (r *workspaceResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	id := req.ID
	if strings.HasPrefix(id, "/") {
		w, err := r.eng.AdoptLocal(ctx, id)
		if err != nil {
			addEngineError(&resp.Diagnostics, "Importing the workspace failed", err)
			return
		}
		id = w.ID
	} else if !workspace.ValidID(id) {
		resp.Diagnostics.AddError("Invalid import ID",
			fmt.Sprintf("expected a workspace id (a UUID) or the absolute root directory of a local workspace; got %q", id))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
	// Until an apply records the configured value, an imported workspace is
	// kept on destroy: importing and destroying must not delete a directory.
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("keep_on_destroy"), true)...)
}

// absolutePathValidator requires an absolute POSIX path.
type absolutePathValidator struct{}

func (absolutePathValidator) Description(context.Context) string { return "must be an absolute path" }

func (v absolutePathValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (absolutePathValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	s := req.ConfigValue.ValueString()
	if !filepath.IsAbs(s) || filepath.Clean(s) != s {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid workspace root",
			fmt.Sprintf("root %q must be an absolute, clean path such as \"/srv/sandboxes/agent-1\" (use abspath() for a path relative to the module).", s))
	}
}
