package provider

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// volumeModel is one element of docker.volumes.
type volumeModel struct {
	VolumeName types.String `tfsdk:"volume_name"`
	Path       types.String `tfsdk:"path"`
	ReadOnly   types.Bool   `tfsdk:"read_only"`
}

var volumeAttrTypes = map[string]attr.Type{
	"volume_name": types.StringType, "path": types.StringType, "read_only": types.BoolType,
}

var volumesPath = path.Root("docker").AtName("volumes")

const volumesReplaceDesc = "Changing the volumes replaces the workspace: a container's mounts are fixed when it is created."

func volumesSchema() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Optional: true,
		MarkdownDescription: "Named Docker volumes attached when the container is created (the Python SDK's `docker_volume` " +
			"strategy), such as `{ volume_name = sandbox_s3_mount.x.volume_name, path = \"data\" }`. A missing volume fails " +
			"the apply; destroy leaves the volumes. " + volumesReplaceDesc + " [Details](#docker-volumes).",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"volume_name": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Name of an existing Docker volume, such as `sandbox_s3_mount.x.volume_name` or the name " +
					"given to `docker volume create`.",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"path": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Where the volume appears in the container: relative to the workspace `root` (`\"data\"` is " +
					"`/workspace/data`), or an absolute POSIX path such as `\"/mnt/bucket\"`. `..` fails with `escape_root`, a " +
					"Windows path with `absolute`, the root itself is refused. [Rules](#docker-volumes).",
				Validators: []validator.String{volumePathValidator{}},
			},
			"read_only": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(true),
				MarkdownDescription: "Mount the volume read-only. Default `true`, the Python SDK's default for mounts: writes in the " +
					"container then fail with `Read-only file system`.",
			},
		}},
		PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplaceIf(replaceIfVolumesDiffer, volumesReplaceDesc, volumesReplaceDesc)},
	}
}

// volumePathValidator checks a volume path's form; where it lands
// relative to the root and the other volumes is checked by
// validateVolumes.
type volumePathValidator struct{}

func (volumePathValidator) Description(context.Context) string {
	return "must be a workspace-relative path without `..` segments, or an absolute POSIX path"
}

func (v volumePathValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (volumePathValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	raw := req.ConfigValue.ValueString()
	if strings.ContainsRune(raw, 0) {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid volume path", fmt.Sprintf("path %q contains a NUL byte, which no file name can hold", raw))
		return
	}
	if _, err := workspace.VolumeTarget("/", raw); err != nil {
		addEngineAttributeError(&resp.Diagnostics, req.Path, "Invalid volume path", err)
		return
	}
	if rel, err := posix.ValidateEntryPath(raw); err == nil && rel != "." {
		if msg := entryPathProblem(rel); msg != "" {
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid volume path", fmt.Sprintf("path %q %s", raw, msg))
		}
	}
}

// volumeMounts resolves the known elements of a volumes list against
// root; idx[i] is the list index of mounts[i]. complete is false when an
// element (or the list) is unknown.
func volumeMounts(ctx context.Context, list types.List, root string, diags *diag.Diagnostics) (mounts []spec.VolumeMount, idx []int, complete bool) {
	if list.IsUnknown() {
		return nil, nil, false
	}
	var vols []volumeModel
	diags.Append(list.ElementsAs(ctx, &vols, false)...)
	complete = true
	for i, v := range vols {
		if v.VolumeName.IsUnknown() || v.Path.IsUnknown() || v.ReadOnly.IsUnknown() {
			complete = false
			continue
		}
		target, err := workspace.VolumeTarget(root, v.Path.ValueString())
		if err != nil {
			complete = false // reported by volumePathValidator
			continue
		}
		mounts = append(mounts, spec.VolumeMount{Name: v.VolumeName.ValueString(), Target: target, ReadOnly: v.ReadOnly.ValueBool()})
		idx = append(idx, i)
	}
	return mounts, idx, complete
}

// validateVolumes refuses, on the path of the volume at fault, duplicate
// targets and targets that are (or contain) the root. root "" is unknown:
// nothing can be checked yet.
func validateVolumes(ctx context.Context, list types.List, root string, diags *diag.Diagnostics) {
	if list.IsNull() || root == "" {
		return
	}
	mounts, idx, _ := volumeMounts(ctx, list, root, diags)
	addVolumeMountError(diags, workspace.ValidateVolumeMounts(root, mounts), idx)
}

// addVolumeMountError reports a *spec.VolumeMountError on its path;
// it reports whether err was one.
func addVolumeMountError(diags *diag.Diagnostics, err error, idx []int) bool {
	var vme *spec.VolumeMountError
	if !errors.As(err, &vme) || vme.Index >= len(idx) {
		return false
	}
	diags.AddAttributeError(volumesPath.AtListIndex(idx[vme.Index]).AtName("path"), "Invalid volume path", vme.Reason)
	return true
}

// addCreateDockerError reports a failed container creation, on the volume
// at fault when there is one.
func addCreateDockerError(diags *diag.Diagnostics, s spec.Docker, err error) {
	var missing *spec.MissingVolumeError
	if errors.As(err, &missing) {
		for i, v := range s.Volumes {
			if v.Name == missing.Name {
				diags.AddAttributeError(volumesPath.AtListIndex(i).AtName("volume_name"), "Volume not found",
					err.Error()+". Reference the volume of a mount resource, as volume_name = sandbox_s3_mount.x.volume_name, "+
						"so that Terraform creates it before the workspace.")
				return
			}
		}
	}
	idx := make([]int, max(len(s.Volumes), len(s.Grants)))
	for i := range idx {
		idx[i] = i
	}
	if addVolumeMountError(diags, err, idx[:len(s.Volumes)]) || addGrantError(diags, err, idx[:len(s.Grants)]) ||
		addMissingNetworkError(diags, err) || addIsolationError(diags, "Creating the container workspace failed", err) {
		return
	}
	addEngineAttributeError(diags, path.Root("docker"), "Creating the container workspace failed", err)
}

// replaceIfVolumesDiffer replaces the workspace when the volumes it
// mounts change: another volume, target or read-only flag. The same
// target written another way is not a change.
func replaceIfVolumesDiffer(ctx context.Context, req planmodifier.ListRequest, resp *listplanmodifier.RequiresReplaceIfFuncResponse) {
	// The planned root is not settled yet when this runs: it is the
	// configured root, or else the one in state (root's own modifiers).
	var stateRoot, planRoot types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("root"), &stateRoot)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("root"), &planRoot)...)
	if planRoot.IsNull() {
		planRoot = stateRoot
	}
	if planRoot.IsUnknown() || req.PlanValue.IsUnknown() {
		resp.RequiresReplace = true
		return
	}
	var diags diag.Diagnostics
	before, _, okBefore := volumeMounts(ctx, req.StateValue, stateRoot.ValueString(), &diags)
	after, _, okAfter := volumeMounts(ctx, req.PlanValue, planRoot.ValueString(), &diags)
	resp.RequiresReplace = diags.HasError() || !okBefore || !okAfter || !slices.Equal(before, after)
}

// volumesList is the volumes attribute of an imported container: a target
// below the root in relative form, others absolute; null when none.
func volumesList(vols []spec.VolumeMount, root string) types.List {
	return objectList(volumeAttrTypes, vols, func(v spec.VolumeMount) map[string]attr.Value {
		p := v.Target
		if rel, ok := strings.CutPrefix(v.Target, strings.TrimSuffix(root, "/")+"/"); ok && rel != "" {
			p = rel
		}
		return map[string]attr.Value{
			"volume_name": types.StringValue(v.Name), "path": types.StringValue(p), "read_only": types.BoolValue(v.ReadOnly),
		}
	})
}
