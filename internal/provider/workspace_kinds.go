package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// workspaceKind is one backend block of sandbox_workspace (`local {}`,
// `docker {}`): everything the resource and the data source do that
// differs by kind. A new kind is one more file implementing it and one
// more line in workspaceKinds (and its block's field in workspaceModel);
// no other kind's code changes.
type workspaceKind interface {
	// name is the block's name and the engine's kind ("local", "docker").
	name() string
	// block is the block's schema.
	block() schema.Block
	// object is the block's value in m.
	object(m *workspaceModel) *types.Object
	// fixedAtCreation says whether environment, users, groups and
	// exposed_ports are fixed when the workspace is created, so that
	// changing them replaces it (a container), or can change in place.
	fixedAtCreation() bool
	// keepsRootOwner says whether an existing root keeps its owner when
	// root_owner is not configured, because the default depends on the
	// machine planning (a local root's is the user the provider runs as).
	keepsRootOwner() bool
	// defaultRoot is the root when none is configured, or "" when it is
	// known only after the apply.
	defaultRoot() string
	// validate checks, at plan time, what the configuration alone decides
	// for a workspace of this kind.
	validate(ctx context.Context, m workspaceModel, cfg tfsdk.Config, diags *diag.Diagnostics)
	// modifyPlan checks the planned workspace against what exists, reading only.
	modifyPlan(ctx context.Context, eng *workspace.Engine, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, plan workspaceModel)
	// create makes the workspace and records in private what later reads
	// need.
	create(ctx context.Context, eng *workspace.Engine, m workspaceModel, cfg tfsdk.Config, private privateSetter, diags *diag.Diagnostics) *workspace.Workspace
	// observe reads the kind's block back from the workspace into m on
	// every refresh (drift shows in the plan); after an import, when state
	// has no block, it also fills in what the workspace was created with.
	observe(ctx context.Context, eng *workspace.Engine, w *workspace.Workspace, m *workspaceModel, diags *diag.Diagnostics)
	// update changes in place what the kind can change on a live
	// workspace (a container's limits), before the environment is set.
	update(ctx context.Context, eng *workspace.Engine, req resource.UpdateRequest, w *workspace.Workspace, diags *diag.Diagnostics)
	// missing explains, with an error diagnostic, a workspace that the
	// backend does not find but that is not gone (returns true); false
	// lets the resource plan its re-creation.
	missing(ctx context.Context, eng *workspace.Engine, private privateGetter, id string, diags *diag.Diagnostics) bool
	// adopt finds a workspace by an import ID of this kind's own form
	// (ok false when in is not one).
	adopt(ctx context.Context, eng *workspace.Engine, in string) (w *workspace.Workspace, ok bool, err error)
	// imported sets what an import of w records besides its id.
	imported(ctx context.Context, eng *workspace.Engine, w *workspace.Workspace, resp *resource.ImportStateResponse)
	// find looks a workspace up by the data source's keys of this kind
	// (ok false when none of them is set), naming the key it used.
	find(ctx context.Context, eng *workspace.Engine, m workspaceDataModel, diags *diag.Diagnostics) (w *workspace.Workspace, key path.Path, ok bool, err error)
	// recordedPorts are the exposed ports w was created with, as far as the
	// workspace itself records them.
	recordedPorts(ctx context.Context, eng *workspace.Engine, w *workspace.Workspace) ([]int, error)
}

// kindWithCreated is a workspaceKind whose block has values known only
// once the workspace exists (a pod's name): created sets them in m after
// create.
type kindWithCreated interface {
	created(ctx context.Context, eng *workspace.Engine, w *workspace.Workspace, m *workspaceModel, diags *diag.Diagnostics)
}

// kindWithConfigRoot is a workspaceKind whose default root depends on the
// rest of its block (an agent_sandbox claim's is its template's, known
// only after the apply).
type kindWithConfigRoot interface {
	rootFromConfig(ctx context.Context, cfg tfsdk.Config) string
}

// workspaceKinds are the kinds of sandbox_workspace, in the order their
// blocks are documented.
var workspaceKinds = []workspaceKind{localKind{}, dockerKind{}, kubernetesKind{}, agentSandboxKind{}}

// kindNamed returns the kind called name, or nil.
func kindNamed(name string) workspaceKind {
	for _, k := range workspaceKinds {
		if k.name() == name {
			return k
		}
	}
	return nil
}

// configuredKinds returns the kinds whose block m sets.
func configuredKinds(m *workspaceModel) []workspaceKind {
	var set []workspaceKind
	for _, k := range workspaceKinds {
		if !k.object(m).IsNull() {
			set = append(set, k)
		}
	}
	return set
}

// kindOf returns the kind whose block m sets, or nil when there is not
// exactly one.
func kindOf(m *workspaceModel) workspaceKind {
	if set := configuredKinds(m); len(set) == 1 {
		return set[0]
	}
	return nil
}

// configuredKind is kindOf for a configuration.
func configuredKind(ctx context.Context, cfg tfsdk.Config) workspaceKind {
	for _, k := range workspaceKinds {
		var o types.Object
		cfg.GetAttribute(ctx, path.Root(k.name()), &o)
		if !o.IsNull() {
			return k
		}
	}
	return nil
}

// kindBlocks are the backend blocks of the schema.
func kindBlocks() map[string]schema.Block {
	blocks := make(map[string]schema.Block, len(workspaceKinds))
	for _, k := range workspaceKinds {
		blocks[k.name()] = k.block()
	}
	return blocks
}

// kindBlockNames lists the blocks for messages: "`local {}` or `docker {}`".
func kindBlockNames() string {
	s := ""
	for i, k := range workspaceKinds {
		switch {
		case i == 0:
		case i == len(workspaceKinds)-1:
			s += " or "
		default:
			s += ", "
		}
		s += "`" + k.name() + " { ... }`"
	}
	return s
}

// replaceWhenAddedOrRemoved replaces the workspace when a backend block
// appears or disappears (a switch of backend); changes inside the block
// are handled by the attributes' own modifiers.
type replaceWhenAddedOrRemoved struct{}

func (replaceWhenAddedOrRemoved) Description(context.Context) string {
	return "switching the backend block replaces the workspace"
}

func (m replaceWhenAddedOrRemoved) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (replaceWhenAddedOrRemoved) PlanModifyObject(_ context.Context, req planmodifier.ObjectRequest, resp *planmodifier.ObjectResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	if req.StateValue.IsNull() != req.PlanValue.IsNull() {
		resp.RequiresReplace = true
	}
}

// kindRootDefault plans the kind's default root when root is not set (a
// docker workspace's /workspace), so the plan shows where entries will land.
type kindRootDefault struct{}

func (kindRootDefault) Description(context.Context) string {
	return "defaults to " + workspace.DefaultDockerRoot + " in a docker workspace"
}

func (m kindRootDefault) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (kindRootDefault) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if !req.ConfigValue.IsNull() || !req.StateValue.IsNull() {
		return
	}
	k := configuredKind(ctx, req.Config)
	if k == nil {
		return
	}
	root := k.defaultRoot()
	if rc, ok := k.(kindWithConfigRoot); ok {
		root = rc.rootFromConfig(ctx, req.Config)
	}
	if root != "" {
		resp.PlanValue = types.StringValue(root)
	}
}
