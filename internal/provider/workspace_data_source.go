package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

var (
	_ datasource.DataSourceWithConfigure        = (*workspaceDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*workspaceDataSource)(nil)
)

// NewWorkspaceDataSource returns the sandbox_workspace data source: an
// existing workspace, found without owning it.
func NewWorkspaceDataSource() datasource.DataSource { return &workspaceDataSource{} }

type workspaceDataSource struct {
	eng *workspace.Engine
}

type workspaceDataModel struct {
	ID          types.String `tfsdk:"id"`
	Root        types.String `tfsdk:"root"`
	ContainerID types.String `tfsdk:"container_id"`
	Labels      types.Map    `tfsdk:"labels"`
	Kubernetes  types.Object `tfsdk:"kubernetes"`
	Kind        types.String `tfsdk:"kind"`
	Running     types.Bool   `tfsdk:"running"`
	StartedAt   types.String `tfsdk:"started_at"`
	Endpoints   types.List   `tfsdk:"endpoints"`
}

func (d *workspaceDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_workspace"
}

func (d *workspaceDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.eng = engineFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *workspaceDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	endpointAttrs := map[string]schema.Attribute{}
	for name, t := range endpointAttrTypes {
		switch t {
		case types.Int64Type:
			endpointAttrs[name] = schema.Int64Attribute{Computed: true}
		case types.BoolType:
			endpointAttrs[name] = schema.BoolAttribute{Computed: true}
		default:
			endpointAttrs[name] = schema.StringAttribute{Computed: true}
		}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "An existing workspace, found by its `id`, by the root of a local workspace, by the id, name " +
			"or labels of a docker workspace's container, or by the namespace and pod name or labels of a kubernetes workspace. " +
			"Use it in a root module that adds entries to, or runs commands in, a " +
			"workspace another module owns: destroying this module leaves the workspace alone. Reading it only observes. " +
			"Give exactly one of `id`, `root`, `container_id`, `labels` and `kubernetes`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Workspace id (`sandbox_workspace.<name>.id`): `local:<uuid>:<root>`, `docker:<uuid>` or " +
					"`kubernetes:<uuid>:<namespace>`.",
				Validators: []validator.String{workspaceIDValidator{}},
			},
			"root": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Workspace root. As a lookup key: the absolute host directory of a local workspace, " +
					"which must carry the workspace marker.",
				Validators: []validator.String{absolutePathValidator{}},
			},
			"container_id": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Id or name of a docker workspace's container; null for a local workspace.",
			},
			"labels": schema.MapAttribute{
				Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Container labels that exactly one docker workspace carries.",
			},
			"kubernetes": kubernetesLookupSchema(),
			"kind":       schema.StringAttribute{Computed: true, MarkdownDescription: "`local`, `docker` or `kubernetes`."},
			"running":    schema.BoolAttribute{Computed: true, MarkdownDescription: "`false` when the container is stopped or paused."},
			"started_at": schema.StringAttribute{Computed: true, MarkdownDescription: "When the container was last started (RFC 3339); null for a local workspace."},
			"endpoints": schema.ListNestedAttribute{
				Computed: true,
				MarkdownDescription: "As `sandbox_workspace.endpoints`, for the ports a docker or kubernetes workspace was " +
					"created with (while it runs); empty for a local workspace, whose ports are not recorded with it.",
				NestedObject: schema.NestedAttributeObject{Attributes: endpointAttrs},
			},
		},
	}
}

func (d *workspaceDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{datasourcevalidator.ExactlyOneOf(
		path.MatchRoot("id"), path.MatchRoot("root"), path.MatchRoot("container_id"), path.MatchRoot("labels"),
		path.MatchRoot("kubernetes"))}
}

func (d *workspaceDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m workspaceDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || d.eng == nil {
		return
	}
	var (
		w   *workspace.Workspace
		err error
		key = path.Root("id")
	)
	if !m.ID.IsNull() {
		w, err = d.eng.Open(ctx, m.ID.ValueString())
	} else {
		for _, k := range workspaceKinds {
			var ok bool
			if w, key, ok, err = k.find(ctx, d.eng, m, &resp.Diagnostics); ok {
				break
			}
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	if err == nil && w == nil {
		resp.Diagnostics.AddError("No lookup key", "set one of id, root, container_id, labels or kubernetes")
		return
	}
	if err != nil {
		addEngineAttributeError(&resp.Diagnostics, key, "Finding the workspace failed", err)
		return
	}
	m.ID, m.Root, m.Kind = types.StringValue(w.ID), types.StringValue(w.Root), types.StringValue(w.Kind)
	m.ContainerID = containerID(w)
	m.Kubernetes = kubernetesLookupValue(w, m.Kubernetes)
	m.Running = types.BoolValue(w.Running)
	m.StartedAt = types.StringNull()
	if w.StartedAt != "" {
		m.StartedAt = types.StringValue(w.StartedAt)
	}
	m.Endpoints = types.ListValueMust(types.ObjectType{AttrTypes: endpointAttrTypes}, []attr.Value{})
	if k := kindNamed(w.Kind); k != nil && w.Running {
		ports, err := k.recordedPorts(ctx, d.eng, w)
		if err == nil && len(ports) > 0 {
			m.Endpoints, err = endpointList(ctx, d.eng, w, ports)
		}
		if err != nil {
			addEngineError(&resp.Diagnostics, "Reading the workspace's endpoints failed", err)
			return
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
