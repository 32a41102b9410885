package provider

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/redact"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
	"github.com/google/uuid"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

var (
	_ resource.ResourceWithConfigure      = (*mountResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*mountResource)(nil)
	_ resource.ResourceWithValidateConfig = (*mountResource)(nil)
)

// mountResource is the one implementation behind the six mount resources;
// the kind says which Python SDK mount type it is.
type mountResource struct {
	kind mountType
	eng  *workspace.Engine
}

// privateMountKey holds, in private state, what apply generated that
// destroy needs and that cannot be derived without the write-only
// credentials (the rclone remote name of a GCS mount depends on them).
const privateMountKey = "mount"

type privateMount struct {
	RemoteName string `json:"remote_name,omitempty"`
}

func (r *mountResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + r.kind.typ
}

func (r *mountResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = mountSchema(r.kind)
}

func (r *mountResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.eng = engineFrom(req.ProviderData, &resp.Diagnostics)
}

// ValidateConfig checks everything the configuration alone decides: the
// strategy's shape, the support matrix, the credential boundary rules that
// do not need the workspace, with the Python SDK's messages, each on its
// attribute.
func (r *mountResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	in, ok := r.readInput(ctx, req.Config, &req.Config, &resp.Diagnostics)
	if !ok {
		return
	}
	var ws types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("workspace_id"), &ws)...)
	switch {
	case in.m.Strategy.Type == mount.StrategyInContainer && ws.IsNull():
		resp.Diagnostics.AddAttributeError(path.Root("workspace_id"), "Missing workspace_id",
			"an in_container mount is applied to a running workspace: set workspace_id = sandbox_workspace.<name>.id")
	case in.m.Strategy.Type == mount.StrategyDockerVolume && !ws.IsNull():
		resp.Diagnostics.AddAttributeError(path.Root("workspace_id"), "workspace_id with docker_volume",
			"a docker_volume mount is a named Docker volume that must exist before the container is created, so it "+
				"belongs to no workspace yet: remove workspace_id and attach the volume with the workspace's "+
				"docker { volumes = [{ volume_name = sandbox_"+r.kind.typ+".<name>.volume_name, path = \"...\" }] }")
	}
	r.checkMount(in, &resp.Diagnostics)
}

// checkMount runs the engine's configuration checks on a fully known
// mount and maps their errors to attributes.
func (r *mountResource) checkMount(in mountInput, diags *diag.Diagnostics) {
	if err := in.m.Validate(); err != nil {
		r.addMountError(diags, "Invalid "+r.kind.typ, err)
		return
	}
	target, err := workspace.ResolveMountPath(workspace.DefaultDockerRoot, in.rel, in.m)
	if err != nil {
		if in.m.MountPath == nil || (mountPathValidator{}).problem(*in.m.MountPath) == nil {
			r.addMountError(diags, "Invalid mount path", err)
		}
		return // otherwise mount_path's validator reports it
	}
	if target == workspace.DefaultDockerRoot {
		diags.AddAttributeError(path.Root("mount_path"), "Invalid mount path", "mount_path resolves to the workspace "+
			"root itself: mounting over it would hide the whole workspace; mount below it")
		return
	}
	if err := in.checkBoundary(workspace.DefaultDockerRoot, ""); err != nil {
		r.addMountError(diags, "Mount credentials refused", err)
		return
	}
	if p := in.credentialFileInWorkspace(); p != "" {
		r.addMountError(diags, "Mount credentials refused", mount.NewConfigError(
			"credential files stored in the manifest are not supported for cloud mounts; configure credentials outside "+
				"the sandbox manifest", map[string]any{"mount_type": in.m.Type, "credential_field": p}))
	}
}

// ModifyPlan renders manifest_entry and absolute_path and, when the
// workspace already exists, checks that it can take the mount (backend and
// FUSE grant) so a plan never promises a mount that cannot be made.
func (r *mountResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	in, ok := r.readInput(ctx, req.Plan, &req.Config, &resp.Diagnostics)
	if !ok || resp.Diagnostics.HasError() {
		return
	}
	entry, err := r.manifestEntry(ctx, req.Plan, in)
	if err != nil {
		r.addMountError(&resp.Diagnostics, "Cannot render manifest_entry", err)
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("manifest_entry"), entry)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("mounted"), true)...)
	if !req.State.Raw.IsNull() {
		var mounted types.Bool
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("mounted"), &mounted)...)
		if !mounted.IsNull() && !mounted.ValueBool() {
			resp.RequiresReplace = append(resp.RequiresReplace, path.Root("mounted"))
		}
		return // otherwise an update changes only description or ephemeral
	}
	if in.m.Strategy.Type == mount.StrategyDockerVolume {
		mp, err := workspace.ResolveMountPath(workspace.DefaultDockerRoot, in.rel, in.m)
		if err != nil {
			r.addMountError(&resp.Diagnostics, "Invalid mount path", err)
			return
		}
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("absolute_path"), mp)...)
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("volume_name"), types.StringNull())...)
	if in.workspaceID == "" {
		return // the workspace is created in this apply
	}
	w, err := r.eng.CheckMountWorkspace(ctx, in.workspaceID, in.m)
	if workspaceGone(err) {
		return // the workspace will be re-created, and this mount with it
	}
	if errors.Is(err, workspace.ErrNoFUSE) {
		// A warning, not an error: Terraform also plans configured
		// resources while it plans a destroy, which must stay possible.
		resp.Diagnostics.AddAttributeWarning(path.Root("workspace_id"), "Workspace cannot take this mount",
			err.Error()+"\n\nApplying this plan will fail when the mount is created.")
		return
	}
	if err != nil {
		r.addMountError(&resp.Diagnostics, "Workspace cannot take this mount", err)
		return
	}
	mp, err := workspace.ResolveMountPath(w.Root, in.rel, in.m)
	if err != nil {
		r.addMountError(&resp.Diagnostics, "Invalid mount path", err)
		return
	}
	if err := workspace.CheckMountPath(w, mp); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("mount_path"), "Invalid mount path", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("absolute_path"), mp)...)
	if err := in.checkBoundary(w.Root, workspace.MountBackend(w)); err != nil {
		r.addMountError(&resp.Diagnostics, "Mount credentials refused", err)
		return
	}
	if p := in.credentialFileUnder(w.Root); p != "" {
		r.addMountError(&resp.Diagnostics, "Mount credentials refused", mount.NewConfigError(
			"credential files stored in the manifest are not supported for cloud mounts; configure credentials outside "+
				"the sandbox manifest", map[string]any{"mount_type": in.m.Type, "credential_field": p}))
	}
}

func (r *mountResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	in, ok := r.readInput(ctx, req.Plan, &req.Config, &resp.Diagnostics)
	if !ok || resp.Diagnostics.HasError() {
		if !resp.Diagnostics.HasError() {
			resp.Diagnostics.AddError("Mount configuration unknown at apply", "every mount attribute must be known when it is created")
		}
		return
	}
	ctx = tflog.MaskLogStrings(ctx, redact.AllSecretForms(mount.Secrets(in.m)...)...)
	sid := strings.ReplaceAll(uuid.NewString(), "-", "")
	resp.State.Raw = req.Plan.Raw
	set := func(name string, v any) { resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(name), v)...) }
	set("session_id", sid)
	set("mounted", true)
	if in.m.Strategy.Type == mount.StrategyDockerVolume {
		name, mp, err := r.createVolume(ctx, in, sid)
		if err != nil {
			resp.State.RemoveResource(ctx)
			r.addMountError(&resp.Diagnostics, "Creating the Docker volume failed", err)
			return
		}
		set("id", name)
		set("volume_name", name)
		set("absolute_path", mp)
		return
	}
	res, err := r.eng.ApplyMount(ctx, workspace.MountRequest{WorkspaceID: in.workspaceID, Path: in.rel, Mount: in.m, SessionID: sid})
	var left *workspace.MountLeftError
	if err != nil && !errors.As(err, &left) {
		resp.State.RemoveResource(ctx)
		r.addMountError(&resp.Diagnostics, "Mounting "+r.kind.typ+" at "+in.rel+" failed", err)
		return // ApplyMount removed what it made
	}
	priv, _ := json.Marshal(privateMount{RemoteName: res.Applied.RemoteName})
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateMountKey, priv)...)
	set("id", entryID(in.workspaceID, in.rel))
	set("absolute_path", res.MountPath)
	set("volume_name", types.StringNull())
	if left != nil {
		// Removing the failed mount left something (the error says what):
		// the resource stays in state, tainted by the error, so the next
		// apply or destroy removes it again.
		set("mounted", false)
		r.addMountError(&resp.Diagnostics, "Mounting "+r.kind.typ+" at "+in.rel+" failed", err)
	}
}

func (r *mountResource) createVolume(ctx context.Context, in mountInput, sid string) (name, mp string, err error) {
	mp, err = workspace.ResolveMountPath(workspace.DefaultDockerRoot, in.rel, in.m)
	if err != nil {
		return "", "", err
	}
	driver, opts, _, err := mount.VolumeDriverOptions(in.m)
	if err != nil {
		return "", "", err
	}
	name = mount.VolumeName(sid, mp)
	err = r.eng.CreateVolume(ctx, spec.DockerVolume{Name: name, Driver: driver, Options: opts,
		Labels: map[string]string{"sandbox.mount_type": in.m.Type, "sandbox.path": in.rel}})
	if err != nil {
		return "", "", mount.Redact(err, mount.Secrets(in.m))
	}
	return name, mp, nil
}

// Read drops the mount from state when it is gone (the workspace was
// re-created, the helper died, the volume was removed), so the next plan
// mounts it again with the configured credentials.
func (r *mountResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var ws, abs, vol types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("workspace_id"), &ws)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("absolute_path"), &abs)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("volume_name"), &vol)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !vol.IsNull() {
		info, err := r.eng.InspectVolume(ctx, vol.ValueString())
		if err != nil {
			addEngineError(&resp.Diagnostics, "Reading Docker volume "+vol.ValueString()+" failed", err)
			return
		}
		if !info.Exists {
			resp.State.RemoveResource(ctx)
		}
		return
	}
	active, err := r.eng.MountActive(ctx, ws.ValueString(), abs.ValueString())
	if workspaceGone(err) {
		resp.State.RemoveResource(ctx) // its files went with the workspace
		return
	}
	if workspaceStopped(err) {
		return // nothing can be read in a stopped container: state stays as it was
	}
	if err != nil {
		addEngineError(&resp.Diagnostics, "Reading mount "+abs.ValueString()+" failed", err)
		return
	}
	// An inactive mount stays in state, marked, so that the plan replaces
	// it and its destroy removes what the old mount generated.
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("mounted"), active)...)
}

// Update changes only description or ephemeral (everything else replaces
// the mount): nothing to do in the workspace.
func (r *mountResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (r *mountResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	in, ok := r.readInput(ctx, req.State, nil, &resp.Diagnostics)
	if !ok || resp.Diagnostics.HasError() {
		return
	}
	var sid, vol types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("session_id"), &sid)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("volume_name"), &vol)...)
	if !vol.IsNull() {
		if err := r.eng.RemoveVolume(ctx, vol.ValueString()); err != nil {
			addEngineError(&resp.Diagnostics, "Removing Docker volume "+vol.ValueString()+" failed", err)
		}
		return
	}
	raw, diags := req.Private.GetKey(ctx, privateMountKey)
	resp.Diagnostics.Append(diags...)
	var priv privateMount
	if len(raw) > 0 && json.Unmarshal(raw, &priv) == nil && priv.RemoteName != "" && in.m.Strategy.Pattern.Rclone != nil &&
		in.m.Strategy.Pattern.Rclone.RemoteName == nil {
		in.m.Strategy.Pattern.Rclone.RemoteName = &priv.RemoteName
	}
	err := r.eng.UnmountMount(ctx, workspace.MountRequest{WorkspaceID: in.workspaceID, Path: in.rel, Mount: in.m, SessionID: sid.ValueString()})
	if err != nil {
		r.addMountError(&resp.Diagnostics, "Unmounting "+in.rel+" failed", err)
	}
}
