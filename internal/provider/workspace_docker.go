package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// dockerKind is `docker { ... }`: a directory inside a container. The
// docker slice is the workspace_docker*.go files: the block's schema
// (workspace_docker_schema.go, with isolation and networks in theirs), its
// model and the spec.Docker it becomes (workspace_docker_model.go), and the
// plan checks against the daemon (workspace_docker_image_plan.go).
type dockerKind struct{}

func (dockerKind) name() string                           { return "docker" }
func (dockerKind) block() schema.Block                    { return dockerBlockSchema() }
func (dockerKind) object(m *workspaceModel) *types.Object { return &m.Docker }
func (dockerKind) fixedAtCreation() bool                  { return true }
func (dockerKind) defaultRoot() string                    { return workspace.DefaultDockerRoot }
func (dockerKind) keepsRootOwner() bool                   { return false }

func (dockerKind) validate(ctx context.Context, m workspaceModel, _ tfsdk.Config, diags *diag.Diagnostics) {
	validateDocker(ctx, m, diags)
}

// modifyPlan refuses, at plan time, a runtime the daemon does not have
// and a missing image it must not pull.
func (dockerKind) modifyPlan(ctx context.Context, eng *workspace.Engine, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, plan workspaceModel) {
	planRuntime(ctx, eng, req, plan, &resp.Diagnostics)
	if !plan.Docker.IsNull() && !plan.Docker.IsUnknown() {
		planImage(ctx, eng, req, &resp.Diagnostics)
	}
	warnDiskLost(ctx, req, resp)
}

// warnDiskLost warns, when a container whose root is a sized tmpfs (`disk`)
// has stopped, that what was under the root is gone: a tmpfs does not
// survive its container's stop. The apply re-creates the declared entries;
// files that commands wrote or a restore_from archive put there are not.
func warnDiskLost(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() {
		return
	}
	var running types.Bool
	var disk types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("running"), &running)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("docker").AtName("disk"), &disk)...)
	if running.IsNull() || running.ValueBool() || disk.IsNull() || disk.ValueString() == "" {
		return
	}
	resp.Diagnostics.AddAttributeWarning(path.Root("docker").AtName("disk"), "The workspace root was lost with its container's stop",
		"With disk set, the root is a tmpfs, which does not survive a stop or restart of the container: everything under "+
			"it is gone. This apply starts the container and re-creates the declared entries; files that commands wrote "+
			"there, and what restore_from put there, are not restored. Replace the workspace (terraform apply "+
			"-replace=...) to restore from its snapshot again.")
}

// update applies live limit changes with docker update and network
// changes with docker network connect and disconnect.
func (dockerKind) update(ctx context.Context, eng *workspace.Engine, req resource.UpdateRequest, w *workspace.Workspace, diags *diag.Diagnostics) {
	updateLimits(ctx, eng, req, w, diags)
	updateNetworks(ctx, eng, req, w, diags)
}

func (dockerKind) create(ctx context.Context, eng *workspace.Engine, m workspaceModel, cfg tfsdk.Config, private privateSetter, diags *diag.Diagnostics) *workspace.Workspace {
	spec := dockerSpec(ctx, m, diags)
	spec.SecretEnvironment = configEnvWO(ctx, cfg, diags)
	spec.Expiry = newExpiry(m, diags)
	if diags.HasError() {
		return nil
	}
	w, err := eng.CreateDocker(ctx, spec)
	if err != nil {
		addCreateDockerError(diags, spec, err)
		return nil
	}
	rememberDaemon(ctx, eng, private, diags)
	return w
}

func (dockerKind) observe(ctx context.Context, eng *workspace.Engine, w *workspace.Workspace, m *workspaceModel, diags *diag.Diagnostics) {
	info, err := eng.DescribeDocker(ctx, w)
	if err != nil {
		addEngineError(diags, "Reading the container failed", err)
		return
	}
	refreshGrants(ctx, m, info)
	if !m.Docker.IsNull() {
		m.Docker = refreshNetworking(ctx, refreshIsolation(ctx, m.Docker, info, diags), info, diags)
		return
	}
	m.Docker = dockerObject(info, w.Root)
	if info.HasSpec {
		// Imported: the container says what it was created with.
		importedSpec(info, m)
	}
}

// privateDaemonKey is the private-state key holding the id of the Docker
// daemon a docker workspace was created on.
const privateDaemonKey = "docker_daemon"

// rememberDaemon records the configured daemon's id in private state.
func rememberDaemon(ctx context.Context, eng *workspace.Engine, p privateSetter, diags *diag.Diagnostics) {
	if id, err := eng.DockerDaemonID(ctx); err == nil {
		rememberIdentity(ctx, p, privateDaemonKey, id, diags)
	}
}

// missing reports (with an error diagnostic) that a docker workspace not
// found on the configured daemon was created on another one: the provider
// is pointed at the wrong daemon, and re-creating the workspace would
// orphan the real one.
func (dockerKind) missing(ctx context.Context, eng *workspace.Engine, p privateGetter, id string, diags *diag.Diagnostics) bool {
	want := recordedIdentity(ctx, p, privateDaemonKey)
	if want == "" {
		return false
	}
	have, err := eng.DockerDaemonID(ctx)
	if err != nil || have == want {
		return false
	}
	diags.AddAttributeError(path.Root("id"), "Workspace is on another Docker daemon",
		fmt.Sprintf("workspace %s was created on the Docker daemon with id %s, but the provider is configured for the daemon "+
			"with id %s, which has no such container. Configure the provider's docker_host for the daemon that holds it, or, "+
			"if that daemon and its containers are gone for good, remove the workspace from state (terraform state rm).", id, want, have))
	return true
}

// adopt takes the bare UUID of a docker workspace, found by its
// container's label.
func (dockerKind) adopt(ctx context.Context, eng *workspace.Engine, in string) (*workspace.Workspace, bool, error) {
	if !workspace.ValidUUID(in) {
		return nil, false, nil
	}
	w, err := eng.AdoptDocker(ctx, in)
	return w, true, err
}

// imported: a container is the provider's own (it carries the workspace
// label), so replacing or destroying it removes it.
func (dockerKind) imported(ctx context.Context, eng *workspace.Engine, _ *workspace.Workspace, resp *resource.ImportStateResponse) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("keep_on_destroy"), false)...)
	rememberDaemon(ctx, eng, resp.Private, &resp.Diagnostics)
}

func (dockerKind) find(ctx context.Context, eng *workspace.Engine, m workspaceDataModel, diags *diag.Diagnostics) (*workspace.Workspace, path.Path, bool, error) {
	if m.ContainerID.IsNull() && m.Labels.IsNull() {
		return nil, path.Empty(), false, nil
	}
	key := path.Root("container_id")
	labels := map[string]string{}
	if !m.Labels.IsNull() {
		key = path.Root("labels")
		diags.Append(m.Labels.ElementsAs(ctx, &labels, false)...)
	}
	w, err := eng.FindDocker(ctx, m.ContainerID.ValueString(), labels)
	return w, key, true, err
}

// recordedPorts are the ports the container publishes.
func (dockerKind) recordedPorts(ctx context.Context, eng *workspace.Engine, w *workspace.Workspace) ([]int, error) {
	info, err := eng.DescribeDocker(ctx, w)
	return info.ExposedPorts, err
}
