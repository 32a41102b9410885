package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// LocalUsersGroupsMessage refuses users and groups on a local workspace,
// as the Python SDK's unix-local backend does (design/sdk-model.md §6.3),
// in this provider's terms.
const LocalUsersGroupsMessage = "a local workspace cannot have users or groups: provisioning them would create accounts on the " +
	"machine running Terraform (the Python SDK's local sandbox refuses them too). Remove users and groups, or use a " +
	"docker or kubernetes workspace."

// localKind is `local {}`: a directory on the machine running Terraform.
type localKind struct{}

func (localKind) name() string                           { return "local" }
func (localKind) object(m *workspaceModel) *types.Object { return &m.Local }
func (localKind) fixedAtCreation() bool                  { return false }
func (localKind) defaultRoot() string                    { return "" }
func (localKind) keepsRootOwner() bool                   { return true }

func (localKind) block() schema.Block {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Selects the local backend: the workspace is a directory on the machine running " +
			"Terraform. Written as an empty block, `local {}`. Conflicts with the other backend blocks.",
		PlanModifiers: []planmodifier.Object{replaceWhenAddedOrRemoved{}},
	}
}

func (localKind) validate(ctx context.Context, m workspaceModel, cfg tfsdk.Config, diags *diag.Diagnostics) {
	validateLocalGrants(ctx, m, diags)
	env := map[string]string{}
	if !m.Environment.IsUnknown() && !m.Environment.IsNull() && !m.Environment.ElementsAs(ctx, &env, false).HasError() {
		if err := workspace.CheckLocalEnvironment(env); err != nil {
			diags.AddAttributeError(path.Root("environment"), "Environment too large for a local workspace", err.Error())
		}
	}
	for _, a := range []string{"users", "groups"} {
		var v types.List
		diags.Append(cfg.GetAttribute(ctx, path.Root(a), &v)...)
		if !v.IsNull() && (v.IsUnknown() || len(v.Elements()) > 0) {
			diags.AddAttributeError(path.Root(a), "Users and groups need a container workspace", LocalUsersGroupsMessage)
		}
	}
	var wo types.Map
	diags.Append(cfg.GetAttribute(ctx, path.Root("environment_wo"), &wo)...)
	if !wo.IsNull() {
		diags.AddAttributeError(path.Root("environment_wo"), "environment_wo needs a Docker workspace",
			"a local workspace has no process of its own to hold secret environment variables, and recording them "+
				"would write them to a file on the host. Give secrets to commands with sandbox_command.environment_wo, "+
				"or to files with sandbox_file.content_wo.")
	}
}

// modifyPlan refuses, at plan time, a root that could not be a workspace
// without putting other data at risk (see workspace.Engine.CheckNewLocalRoot).
// It only reads the disk.
func (localKind) modifyPlan(_ context.Context, eng *workspace.Engine, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, plan workspaceModel) {
	if plan.Root.IsUnknown() || plan.Root.IsNull() {
		return
	}
	var err error
	if req.State.Raw.IsNull() {
		err = eng.CheckNewLocalRoot(plan.Root.ValueString())
	} else {
		// Kept, or replaced: the new workspace is created after the old
		// one is gone.
		err = eng.CheckLocalRoot(plan.Root.ValueString())
	}
	if err != nil {
		addEngineAttributeError(&resp.Diagnostics, path.Root("root"), "Unusable workspace root", err)
	}
}

func (localKind) create(ctx context.Context, eng *workspace.Engine, m workspaceModel, _ tfsdk.Config, _ privateSetter, diags *diag.Diagnostics) *workspace.Workspace {
	env := map[string]string{}
	diags.Append(m.Environment.ElementsAs(ctx, &env, false)...)
	x := newExpiry(m, diags)
	if diags.HasError() {
		return nil
	}
	w, err := eng.CreateLocal(ctx, workspace.LocalSpec{Root: m.Root.ValueString(), Environment: env, Expiry: x})
	if err != nil {
		addEngineAttributeError(diags, path.Root("root"), "Creating the workspace failed", err)
		return nil
	}
	return w
}

func (localKind) observe(_ context.Context, _ *workspace.Engine, _ *workspace.Workspace, m *workspaceModel, _ *diag.Diagnostics) {
	if m.Local.IsNull() {
		m.Local = types.ObjectValueMust(map[string]attr.Type{}, map[string]attr.Value{})
	}
}

// update: a local workspace's environment is all that changes in place.
func (localKind) update(context.Context, *workspace.Engine, resource.UpdateRequest, *workspace.Workspace, *diag.Diagnostics) {
}

func (localKind) missing(context.Context, *workspace.Engine, privateGetter, string, *diag.Diagnostics) bool {
	return false
}

// adopt takes the absolute root of a local workspace (which must carry the
// workspace marker).
func (localKind) adopt(ctx context.Context, eng *workspace.Engine, in string) (*workspace.Workspace, bool, error) {
	if !strings.HasPrefix(in, "/") {
		return nil, false, nil
	}
	w, err := eng.AdoptLocal(ctx, in)
	return w, true, err
}

// imported keeps an imported local workspace on destroy until an apply
// records the configured value: importing and destroying must not delete
// a directory.
func (localKind) imported(ctx context.Context, _ *workspace.Engine, _ *workspace.Workspace, resp *resource.ImportStateResponse) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("keep_on_destroy"), true)...)
}

func (localKind) find(ctx context.Context, eng *workspace.Engine, m workspaceDataModel, _ *diag.Diagnostics) (*workspace.Workspace, path.Path, bool, error) {
	if m.Root.IsNull() {
		return nil, path.Empty(), false, nil
	}
	w, err := eng.AdoptLocal(ctx, m.Root.ValueString())
	return w, path.Root("root"), true, err
}

// recordedPorts: a local workspace records no ports of its own.
func (localKind) recordedPorts(context.Context, *workspace.Engine, *workspace.Workspace) ([]int, error) {
	return nil, nil
}
