package provider

import (
	"context"
	"errors"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// snapshotImageModel is sandbox_snapshot's image block.
type snapshotImageModel struct {
	Repository types.String `tfsdk:"repository"`
	Tag        types.String `tfsdk:"tag"`
}

// ref is repository:tag as the daemon names the image.
func (m *snapshotImageModel) ref() string {
	tag := m.Tag.ValueString()
	if tag == "" {
		tag = "latest"
	}
	return m.Repository.ValueString() + ":" + tag
}

// Docker's reference grammar: a repository path (lower case components,
// optionally behind a registry host[:port]) and a tag.
var (
	imageRepositoryPattern = regexp.MustCompile(`^([a-zA-Z0-9.-]+(:[0-9]+)?/)?[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*(/[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*)*$`)
	imageTagPattern        = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)
)

func snapshotImageBlock() schema.Block {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Write a Docker workspace's whole container filesystem (image layers, what was installed, " +
			"the root) as a local image, for `docker { image = sandbox_snapshot.x.image_id }`, without `exclude` paths, " +
			"ephemeral entries and mount contents. Docker only (a local or kubernetes workspace fails the plan). Set " +
			"exactly one of `local`, `s3` and `image`.",
		Attributes: map[string]schema.Attribute{
			"repository": schema.StringAttribute{
				// Optional so that an absent block is valid; the block requires it.
				Optional: true, MarkdownDescription: "Repository of the image, such as `sandbox/env` or " +
					"`registry.example:5000/team/env` (nothing is pushed). Required in the block.",
				Validators: []validator.String{stringvalidator.RegexMatches(imageRepositoryPattern,
					"must be a Docker repository name (lower case path components, optionally behind a registry host)")},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"tag": schema.StringAttribute{
				Optional: true, MarkdownDescription: "Tag of the image. Default `latest`. A later snapshot with the same " +
					"repository and tag takes the tag over; `image_id` keeps naming this one.",
				Validators:    []validator.String{stringvalidator.RegexMatches(imageTagPattern, "must be a Docker tag (up to 128 letters, digits, _, . and -, not first)")},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
		},
		Validators:    []validator.Object{objectvalidator.AlsoRequires(path.MatchRelative().AtName("repository"))},
		PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplace()},
	}
}

// validateImageWorkspace refuses an image snapshot of a workspace whose
// known id says it is not a Docker container.
func validateImageWorkspace(id types.String, diags *diag.Diagnostics) {
	if id.IsNull() || id.IsUnknown() {
		return
	}
	ref, err := workspace.ParseID(id.ValueString())
	if err != nil || ref.Kind == "" || ref.Kind == "docker" {
		return
	}
	why := "a local workspace is a host directory, not a container filesystem: use local or s3"
	if ref.Kind == "kubernetes" || ref.Kind == workspace.AgentSandboxKind {
		why = "the Kubernetes API has no way to commit a pod's filesystem as an image: use local or s3, and " +
			"restore_from.url on the pod workspace"
	}
	diags.AddAttributeError(path.Root("image"), "Image snapshots are Docker only",
		"workspace_id names a "+ref.Kind+" workspace; "+why+".")
}

// createImage takes the image snapshot and records it in m.
func (r *snapshotResource) createImage(ctx context.Context, ws *workspace.Workspace, req workspace.SnapshotRequest,
	m *snapshotResourceModel, diags *diag.Diagnostics) {
	res, err := ws.SnapshotImage(ctx, workspace.ImageRequest{Repository: m.Image.Repository.ValueString(),
		Tag: m.Image.Tag.ValueString(), SnapshotID: req.SnapshotID, Exclude: req.Exclude, Limits: req.Limits,
		AllowSecrets: req.AllowSecrets, InputsSHA256: m.InputsSHA256.ValueString()})
	if errors.Is(err, workspace.ErrImageNotDocker) {
		diags.AddAttributeError(path.Root("image"), "Image snapshots are Docker only", err.Error())
		return
	}
	if errors.Is(err, workspace.ErrRootIsMount) {
		diags.AddAttributeError(path.Root("image"), "The workspace root cannot be in an image", err.Error()+
			". A workspace with docker.disk keeps its root on a tmpfs, which no image holds: take a local or s3 "+
			"snapshot of it (restore_from on the fork), or leave docker.disk unset on the workspace to be imaged.")
		return
	}
	if err != nil {
		diags.AddError("Snapshot failed", snapshotFailure(err))
		return
	}
	m.ImageID, m.Path, m.URL = types.StringValue(res.ID), types.StringNull(), types.StringNull()
	m.SHA256, m.Fingerprint, m.Files = types.StringNull(), types.StringNull(), types.MapNull(types.StringType)
	m.Size, m.FileCount = types.Int64Value(res.Bytes), types.Int64Value(int64(res.Files))
}

// readImage leaves state when the image is gone or is another snapshot's.
func (r *snapshotResource) readImage(ctx context.Context, m snapshotResourceModel, resp *resource.ReadResponse) {
	st, err := r.eng.SnapshotImageState(ctx, m.ImageID.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the snapshot image", err.Error())
		return
	}
	if !st.Exists || st.SnapshotID != m.SnapshotID.ValueString() {
		resp.State.RemoveResource(ctx)
	}
}

// deleteImage removes the image unless a container uses it.
func (r *snapshotResource) deleteImage(ctx context.Context, m snapshotResourceModel, resp *resource.DeleteResponse) {
	err := r.eng.RemoveSnapshotImage(ctx, m.ImageID.ValueString(), m.Image.ref())
	switch {
	case errors.Is(err, workspace.ErrImageInUse):
		resp.Diagnostics.AddWarning("Snapshot image left in place", m.ImageID.ValueString()+" ("+m.Image.ref()+"): "+
			err.Error()+". Remove it with docker image rm once those containers are gone.")
	case err != nil:
		resp.Diagnostics.AddError("Cannot remove the snapshot image", err.Error())
	}
}
