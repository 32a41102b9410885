package provider

import (
	"context"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// replaceIfFixedAtCreation replaces a docker workspace when the attribute changes:
// the container is created with it (environment, ports) or provisioned
// from it at creation (users, groups). A local workspace updates in place.
// An unset list or map and an empty one mean the same container, and so do
// a list and the same list without duplicates (as exposed_ports are read
// back): neither is a change that replaces it, so an imported workspace is
// not replaced for how its configuration spells nothing.
func replaceIfFixedAtCreation(ctx context.Context, req planmodifier.ListRequest, resp *listplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = fixedAtCreation(ctx, req.Config) && !sameElements(req.StateValue.Elements(), req.PlanValue.Elements())
}

func replaceMapIfFixedAtCreation(ctx context.Context, req planmodifier.MapRequest, resp *mapplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = fixedAtCreation(ctx, req.Config) && !sameMap(req.StateValue, req.PlanValue)
}

// fixedAtCreation reports whether the configured kind fixes environment,
// users, groups and ports when the workspace is created.
func fixedAtCreation(ctx context.Context, cfg tfsdk.Config) bool {
	k := configuredKind(ctx, cfg)
	return k != nil && k.fixedAtCreation()
}

func replaceMapIfChanged(_ context.Context, req planmodifier.MapRequest, resp *mapplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = !sameMap(req.StateValue, req.PlanValue)
}

// replaceBoolIfChanged treats an unset bool as false.
func replaceBoolIfChanged(_ context.Context, req planmodifier.BoolRequest, resp *boolplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = req.StateValue.ValueBool() != req.PlanValue.ValueBool()
}

func sameMap(a, b types.Map) bool {
	if a.IsUnknown() || b.IsUnknown() {
		return false
	}
	ae, be := a.Elements(), b.Elements()
	if len(ae) != len(be) {
		return false
	}
	for k, v := range ae {
		if w, ok := be[k]; !ok || !v.Equal(w) {
			return false
		}
	}
	return true
}

// sameElements compares two lists with duplicates dropped, order kept.
func sameElements(a, b []attr.Value) bool {
	dedup := func(l []attr.Value) []attr.Value {
		var out []attr.Value
		for _, v := range l {
			if !slices.ContainsFunc(out, v.Equal) {
				out = append(out, v)
			}
		}
		return out
	}
	a, b = dedup(a), dedup(b)
	return slices.EqualFunc(a, b, func(x, y attr.Value) bool { return x.Equal(y) })
}

const replaceIfDockerDesc = "Changing it replaces a docker or kubernetes workspace and updates a local one in place."

// replaceAccountsDesc is what a change of users or groups does (a local
// workspace refuses them).
const replaceAccountsDesc = "Changing it replaces the workspace."

func (r *workspaceResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	userAttrs := map[string]schema.Attribute{
		"name": schema.StringAttribute{Required: true, MarkdownDescription: "User name (the Python SDK's manifest `users[].name`): a POSIX " +
			"portable name (letters, digits, `.`, `_`, `-`; not starting with `-` or `.`; at most 32 bytes; not all digits; " +
			"not `root`), checked at plan time.", Validators: []validator.String{accountNameValidator("user")}},
	}
	envWO, envWOVersion := workspaceEnvWOAttributes()
	resp.Schema = schema.Schema{
		Version: 1,
		MarkdownDescription: "A sandbox workspace: a root directory that entries (`sandbox_dir`, `sandbox_file`, " +
			"`sandbox_local_dir`, ...) fill. Exactly one backend block: `local {}` (a host directory), `docker { ... }` " +
			"(a container, the Python SDK's Docker backend) or `kubernetes { ... }` (a pod). The workspace is found from its " +
			"`id` alone, from any working directory or machine that sees the same directory, Docker daemon or cluster. A vanished directory or a removed container " +
			"plans the workspace's re-creation; a container stopped or paused against its `run_state` is put back by the apply. " +
			"Import ID: the workspace `id` (of any kind), the UUID of a docker workspace, or the absolute root of a local workspace " +
			"(which must carry the workspace marker). An imported local workspace is kept on destroy until an apply " +
			"records `keep_on_destroy` from the configuration.",
		Attributes: map[string]schema.Attribute{
			"restore_from":      restoreFromAttribute(),
			"run_state":         runStateAttribute(),
			"wait_until":        waitUntilAttribute(),
			"extra_path_grants": grantsAttribute(),
			"egress":            egressAttribute(),
			"id": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "Workspace id, new on every creation: `local:<uuid>:<root>`, `docker:<uuid>` or `kubernetes:<uuid>:<namespace>`. It says " +
					"where the workspace is, so entries reach it from state alone.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"running": schema.BoolAttribute{
				Computed: true,
				MarkdownDescription: "Whether the workspace runs: `false` when its container is stopped or paused, which the " +
					"next apply undoes (in place) unless `run_state` declares it. Always `true` for a local workspace.",
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()},
			},
			"started_at": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "When the container was last started (RFC 3339, as Docker reports it); it changes on every " +
					"restart, so `triggers = { boot = sandbox_workspace.ws.started_at }` re-runs a `sandbox_command` after one. " +
					"Null for a local workspace.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"root": schema.StringAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "Absolute workspace root. Local: the host directory, default `<local_base_dir>/<id>`; a non-empty " +
					"directory is refused, and so is a root at or below a symlink (`symlink_not_supported`: write the resolved path). " +
					"Docker: the directory in the container, default `" + workspace.DefaultDockerRoot + "` (the " +
					"Python SDK's manifest root), created at start with mode 0755. Changing it replaces the workspace.",
				PlanModifiers: []planmodifier.String{kindRootDefault{}, stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{absolutePathValidator{}},
			},
			"container_id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Full id of the workspace's container (docker backend); null for a local workspace.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"root_owner": rootOwnerAttribute(),
			"keep_on_destroy": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
				MarkdownDescription: "When `true`, destroy forgets the workspace but leaves its directory (local), its " +
					"container (docker) or its pod (kubernetes) and everything in it. Default `false`: destroy removes the directory, " +
					"the container with the anonymous volumes it created, or the pod with its Service.",
			},
			"environment": schema.MapAttribute{
				Optional:    true,
				ElementType: types.StringType,
				MarkdownDescription: "Environment variables of the workspace (the Python SDK's manifest `environment`), name to " +
					"value: the container's environment on a docker or kubernetes workspace. Values are kept in state in clear text; " +
					"give secrets with `environment_wo` (docker) or `sandbox_file.content_wo` instead. " + replaceIfDockerDesc,
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplaceIf(replaceMapIfFixedAtCreation, replaceIfDockerDesc, replaceIfDockerDesc)},
				Validators:    []validator.Map{envMapValidator{}},
			},
			"environment_wo":         envWO,
			"environment_wo_version": envWOVersion,
			"users": schema.ListNestedAttribute{
				Optional: true,
				MarkdownDescription: "Users to provision (the Python SDK's manifest `users`), created with `useradd` (or BusyBox " +
					"`adduser`) when the container or pod is created; a failing command fails the apply. Docker and kubernetes " +
					"workspaces only (refused at plan time on a local workspace). " + replaceAccountsDesc + " [Details](#users-and-groups).",
				NestedObject:  schema.NestedAttributeObject{Attributes: userAttrs},
				Validators:    []validator.List{uniqueNamesValidator("user")},
				PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplaceIf(replaceIfFixedAtCreation, replaceAccountsDesc, replaceAccountsDesc)},
			},
			"groups": schema.ListNestedAttribute{
				Optional: true,
				MarkdownDescription: "Groups to provision with their members (the Python SDK's manifest `groups`); members not in " +
					"`users` are created too. Entry `group` attributes may name them. Docker and kubernetes workspaces only, like " +
					"`users`. " + replaceAccountsDesc + " [Details](#users-and-groups).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{Required: true, MarkdownDescription: "Group name, a POSIX portable name as `users`.",
						Validators: []validator.String{accountNameValidator("group")}},
					"users": schema.ListNestedAttribute{
						Optional:            true,
						MarkdownDescription: "Members of the group.",
						NestedObject:        schema.NestedAttributeObject{Attributes: userAttrs},
						Validators:          []validator.List{uniqueNamesValidator("member")},
					},
				}},
				Validators:    []validator.List{uniqueNamesValidator("group")},
				PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplaceIf(replaceIfFixedAtCreation, replaceAccountsDesc, replaceAccountsDesc)},
			},
			"exposed_ports": schema.ListAttribute{
				Optional:    true,
				ElementType: types.Int64Type,
				MarkdownDescription: "TCP ports (1-65535) to expose, each with an entry in `endpoints`; duplicates are dropped, " +
					"order kept. On the docker backend each is published on 127.0.0.1 with an ephemeral host port; refused at plan " +
					"time with `network_mode = \"none\"`. " + replaceIfDockerDesc,
				Validators:    []validator.List{listvalidator.ValueInt64sAre(int64validator.Between(1, 65535))},
				PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplaceIf(replaceIfFixedAtCreation, replaceIfDockerDesc, replaceIfDockerDesc)},
			},
			"endpoints": schema.ListNestedAttribute{
				Computed: true,
				MarkdownDescription: "One object per exposed port, in order: `port`, `host`, `host_port` (on the docker backend the " +
					"ephemeral port the daemon assigned, read again on every refresh), `tls` (`false`), `url_http` and `url_ws`. " +
					"[Details](#exposed-ports-and-endpoints).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"port":      schema.Int64Attribute{Computed: true, MarkdownDescription: "The exposed port in the workspace."},
					"host":      schema.StringAttribute{Computed: true, MarkdownDescription: "Host to reach it on."},
					"host_port": schema.Int64Attribute{Computed: true, MarkdownDescription: "Port to reach it on at `host`."},
					"tls":       schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the endpoint uses TLS."},
					"url_http":  schema.StringAttribute{Computed: true, MarkdownDescription: "`http://host:host_port/` (Python SDK `url_for(\"http\")`)."},
					"url_ws":    schema.StringAttribute{Computed: true, MarkdownDescription: "`ws://host:host_port/` (Python SDK `url_for(\"ws\")`)."},
				}},
			},
		},
		Blocks: withTimeouts(kindBlocks()),
	}
	maps.Copy(resp.Schema.Attributes, expiryAttributes())
}
