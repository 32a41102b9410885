package provider

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

var (
	_ datasource.DataSourceWithConfigure        = (*workspacesDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*workspacesDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig   = (*workspacesDataSource)(nil)
)

// NewWorkspacesDataSource returns the sandbox_workspaces data source: the
// workspaces this provider created on a Docker daemon or in a Kubernetes
// namespace, whether or not any state holds them.
func NewWorkspacesDataSource() datasource.DataSource { return &workspacesDataSource{} }

type workspacesDataSource struct {
	eng *workspace.Engine
}

type workspacesDataModel struct {
	Docker     types.Object `tfsdk:"docker"`
	Kubernetes types.Object `tfsdk:"kubernetes"`
	Labels     types.Map    `tfsdk:"labels"`
	Workspaces types.List   `tfsdk:"workspaces"`
}

type workspacesKubernetesModel struct {
	Namespace types.String `tfsdk:"namespace"`
}

var listedAttrTypes = map[string]attr.Type{
	"id": types.StringType, "kind": types.StringType, "container_id": types.StringType, "namespace": types.StringType,
	"pod_name": types.StringType, "image": types.StringType, "root": types.StringType,
	"labels": types.MapType{ElemType: types.StringType}, "run_state": types.StringType, "created_at": types.StringType,
	"expires_at": types.StringType,
}

// maxRefusedShown bounds the containers or pods one warning names.
const maxRefusedShown = 10

func (d *workspacesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_workspaces"
}

func (d *workspacesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.eng = engineFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *workspacesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The workspaces this provider created on the provider's Docker daemon (`docker {}`) or in " +
			"one namespace of its Kubernetes cluster (`kubernetes { namespace }`), whether or not any Terraform state " +
			"still holds them: for a clean-up job that finds what a cancelled run left, then imports (`terraform import " +
			"sandbox_workspace.x <id>`) or removes it. A container or pod that merely carries the provider's labels is " +
			"never listed: it must also be built as the provider builds workspaces (see the page for what is checked); one " +
			"that carries the labels but fails a check is named in a warning. Reading only observes. Give exactly one of " +
			"`docker` and `kubernetes`.",
		Blocks: map[string]schema.Block{
			"docker": schema.SingleNestedBlock{
				MarkdownDescription: "List the docker workspaces of the Docker daemon the provider is configured for " +
					"(its `docker_host` settings). Takes no settings: write `docker {}`.",
			},
			"kubernetes": schema.SingleNestedBlock{
				MarkdownDescription: "List the kubernetes workspaces in one namespace of the cluster the provider's " +
					"`kubernetes` block configures.",
				Attributes: map[string]schema.Attribute{
					"namespace": schema.StringAttribute{Optional: true, MarkdownDescription: "Namespace to list. Required in this block."},
				},
			},
		},
		Attributes: map[string]schema.Attribute{
			"labels": schema.MapAttribute{
				Optional: true, ElementType: types.StringType,
				MarkdownDescription: "List only workspaces whose container or pod carries every one of these labels " +
					"(exact values). Default: all.",
			},
			"workspaces": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The workspaces found, oldest first.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id": str("Workspace id, as `sandbox_workspace.id` holds it and its import takes: `docker:<uuid>` or " +
						"`kubernetes:<uuid>:<namespace>`."),
					"kind":         str("`docker` or `kubernetes`."),
					"container_id": str("Full id of a docker workspace's container, as `docker ps --no-trunc` shows it; null for a pod."),
					"namespace":    str("Namespace of a kubernetes workspace's pod; null for a container."),
					"pod_name":     str("Name of a kubernetes workspace's pod, `sandbox-<uuid>`; null for a container."),
					"image":        str("Image the workspace container runs."),
					"root":         str("Workspace root inside the container."),
					"labels": schema.MapAttribute{Computed: true, ElementType: types.StringType,
						MarkdownDescription: "Labels of the container or pod, without the provider's own (and, on Docker, " +
							"without those inherited unchanged from the image)."},
					"run_state": str("What the backend observes: `running`, `paused` or `stopped` (created or exited) for " +
						"a container; the pod's phase lower-cased (`pending`, `running`, `succeeded`, `failed`, `unknown`) for a pod."),
					"created_at": str("When the container or pod was created (RFC 3339, UTC)."),
					"expires_at": str("When the workspace expires (RFC 3339, UTC), as recorded on the container " +
						"(label `sandbox.expires_at`) or pod (annotation `sandbox.expires_at`); null when none is recorded " +
						"or the recorded value is not RFC 3339."),
				}},
			},
		},
	}
}

func (d *workspacesDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{datasourcevalidator.ExactlyOneOf(path.MatchRoot("docker"), path.MatchRoot("kubernetes"))}
}

// ValidateConfig checks a kubernetes listing's namespace and labels at plan
// time, whenever they are known.
func (d *workspacesDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var m workspacesDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || m.Kubernetes.IsNull() || m.Kubernetes.IsUnknown() || m.Labels.IsUnknown() {
		return
	}
	ns, labels, ok := d.kubernetesInput(ctx, m, resp)
	if !ok {
		return
	}
	if err := workspace.CheckKubernetesLookup(ns, "", labels); err != nil {
		at := path.Root("kubernetes").AtName("namespace")
		var fe *spec.KubernetesFieldError
		if errors.As(err, &fe) && fe.Field == "labels" {
			at = path.Root("labels")
		}
		resp.Diagnostics.AddAttributeError(at, "Invalid kubernetes listing", err.Error()+".")
	}
}

// kubernetesInput reads the namespace and labels of a kubernetes listing;
// ok is false when the namespace is not known yet or is missing (then an
// error is added).
func (d *workspacesDataSource) kubernetesInput(ctx context.Context, m workspacesDataModel, resp *datasource.ValidateConfigResponse) (string, map[string]string, bool) {
	ns, ok := m.Kubernetes.Attributes()["namespace"].(types.String)
	if !ok || ns.IsUnknown() {
		return "", nil, false
	}
	if ns.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("kubernetes").AtName("namespace"), "Missing namespace",
			"a kubernetes listing needs the namespace to list.")
		return "", nil, false
	}
	for _, v := range m.Labels.Elements() {
		if v.IsUnknown() {
			return "", nil, false
		}
	}
	labels := map[string]string{}
	if !m.Labels.IsNull() {
		resp.Diagnostics.Append(m.Labels.ElementsAs(ctx, &labels, false)...)
	}
	return ns.ValueString(), labels, !resp.Diagnostics.HasError()
}

func (d *workspacesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m workspacesDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || d.eng == nil {
		return
	}
	labels := map[string]string{}
	if !m.Labels.IsNull() {
		resp.Diagnostics.Append(m.Labels.ElementsAs(ctx, &labels, false)...)
	}
	var (
		found   []workspace.Listed
		refused []workspace.Refused
		err     error
		where   string
	)
	if !m.Kubernetes.IsNull() {
		var k workspacesKubernetesModel
		resp.Diagnostics.Append(m.Kubernetes.As(ctx, &k, basetypes.ObjectAsOptions{})...)
		if resp.Diagnostics.HasError() {
			return
		}
		where = "namespace " + k.Namespace.ValueString()
		found, refused, err = d.eng.ListKubernetes(ctx, k.Namespace.ValueString(), labels)
	} else {
		where = "the Docker daemon"
		found, refused, err = d.eng.ListDocker(ctx, labels)
	}
	if err != nil {
		addEngineError(&resp.Diagnostics, "Listing the workspaces failed", err)
		return
	}
	if len(refused) > 0 {
		resp.Diagnostics.AddWarning("Objects carrying the provider's labels were not listed", refusedDetail(where, refused))
	}
	items := make([]attr.Value, 0, len(found))
	for _, l := range found {
		lm, diags := types.MapValueFrom(ctx, types.StringType, l.Labels)
		resp.Diagnostics.Append(diags...)
		if l.Labels == nil {
			lm = types.MapValueMust(types.StringType, map[string]attr.Value{})
		}
		items = append(items, types.ObjectValueMust(listedAttrTypes, map[string]attr.Value{
			"id": types.StringValue(l.ID), "kind": types.StringValue(l.Kind), "container_id": nullIfEmpty(l.ContainerID),
			"namespace": nullIfEmpty(l.Namespace), "pod_name": nullIfEmpty(l.PodName), "image": types.StringValue(l.Image),
			"root": types.StringValue(l.Root), "labels": lm, "run_state": types.StringValue(l.RunState),
			"created_at": types.StringValue(l.CreatedAt), "expires_at": nullIfEmpty(l.ExpiresAt),
		}))
	}
	m.Workspaces = types.ListValueMust(types.ObjectType{AttrTypes: listedAttrTypes}, items)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func refusedDetail(where string, refused []workspace.Refused) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d object(s) on %s carry the provider's workspace label but are not workspaces it created, so they "+
		"are not listed (nothing was changed):", len(refused), where)
	for i, r := range refused {
		if i == maxRefusedShown {
			fmt.Fprintf(&b, "\n- and %d more", len(refused)-i)
			break
		}
		fmt.Fprintf(&b, "\n- %s: %s", r.Object, r.Reason)
	}
	return b.String()
}
