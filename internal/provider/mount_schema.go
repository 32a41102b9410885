package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// mountSchema builds the schema of a mount resource: the common mount
// fields (design/sdk-model.md §5.1), the kind's own fields, and the strategy blocks.
func mountSchema(k mountType) schema.Schema {
	attrs := k.fieldAttributes()
	replaceStr := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	keepStr := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	attrs["id"] = schema.StringAttribute{
		Computed: true, PlanModifiers: keepStr,
		MarkdownDescription: "`<workspace_id>/<path>` for an `in_container` mount; the Docker volume name for a `docker_volume` mount.",
	}
	attrs["session_id"] = schema.StringAttribute{
		Computed: true, PlanModifiers: keepStr,
		MarkdownDescription: "32 hexadecimal digits, new on every creation, standing in for the Python SDK's session id in the names " +
			"the Python SDK generates: the rclone remote `sandbox_<kind>_<session_id>`, the helper directories " +
			"`.sandbox-rclone-config/<session_id>` (and `-mountpoint-env`, `-blobfuse-config`, `-blobfuse-cache`) and the Docker " +
			"volume name. One per mount, so two mounts never share generated files.",
	}
	attrs["workspace_id"] = schema.StringAttribute{
		Optional: true, PlanModifiers: []planmodifier.String{replaceWorkspaceID{}}, Validators: []validator.String{workspaceIDValidator{}},
		MarkdownDescription: "`id` of the `sandbox_workspace` to mount into. Required with `in_container`; must be unset with " +
			"`docker_volume`, whose volume exists before the container and is attached by the workspace's `docker.volumes`. " +
			"Changing it replaces the mount.",
	}
	attrs["path"] = schema.StringAttribute{
		Required: true, PlanModifiers: replaceStr, Validators: []validator.String{entryPathValidator{}},
		MarkdownDescription: "Workspace-relative POSIX path of the mount entry (the manifest key), checked with the Python SDK's " +
			"manifest path rules at plan time (`absolute`, `escape_root`). The mount lands at `<root>/<path>` unless " +
			"`mount_path` is set. Changing it replaces the mount.",
	}
	attrs["mount_path"] = schema.StringAttribute{
		Optional: true, PlanModifiers: replaceStr, Validators: []validator.String{mountPathValidator{}},
		MarkdownDescription: mountPathDescription,
	}
	attrs["read_only"] = schema.BoolAttribute{
		Optional: true, Computed: true, Default: booldefault.StaticBool(true),
		PlanModifiers:       []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
		MarkdownDescription: "Mount read-only, the Python SDK's `read_only`. Default `true`. Changing it replaces the mount.",
	}
	attrs["ephemeral"] = schema.BoolAttribute{
		Optional: true, Computed: true, Default: booldefault.StaticBool(true),
		MarkdownDescription: "The Python SDK's `ephemeral` flag; mounts default to `true` (never part of a workspace snapshot).",
	}
	attrs["description"] = schema.StringAttribute{Optional: true, MarkdownDescription: "Free text, the Python SDK's entry `description`."}
	attrs["credentials_wo_version"] = schema.Int64Attribute{
		Optional: true, PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplace()},
		MarkdownDescription: "Any number; change it to re-create the mount with the current values of the write-only " +
			"(`_wo`) attributes, which Terraform cannot compare (rotation).",
	}
	attrs["absolute_path"] = schema.StringAttribute{
		Computed: true, PlanModifiers: keepStr,
		MarkdownDescription: "Absolute mount path as seen inside the workspace (`in_container`), after the Python SDK's mount path " +
			"resolution: below the root, or (Docker workspaces only) an absolute `mount_path` elsewhere in the container; " +
			"for `docker_volume`, the path resolved against the Python SDK's default root `/workspace` from which `volume_name` is " +
			"derived.",
	}
	attrs["mounted"] = schema.BoolAttribute{
		Computed: true,
		MarkdownDescription: "Whether the mount was found in place at the last refresh: the mount point listed in the " +
			"workspace's `/proc/mounts` (`in_container`), or the volume known to the daemon (`docker_volume`). When a refresh " +
			"finds it gone (the helper died, someone unmounted it), the plan replaces the mount: destroy removes the old " +
			"generated files, then it is mounted again with the configured credentials.",
	}
	attrs["volume_name"] = schema.StringAttribute{
		Computed: true, PlanModifiers: keepStr,
		MarkdownDescription: "With `docker_volume`: the name of the Docker volume created, the Python SDK's generated name " +
			"`sandbox_<session_id>_<12 hex of sha256(mount path)>_<sanitized mount path>`. Pass it to the workspace's " +
			"`docker.volumes`. Null with `in_container`.",
	}
	attrs["manifest_entry"] = manifestEntryAttribute(mountManifestEntryShape(k.typ))
	if k.extraOptions {
		attrs["extra_options"] = schema.MapAttribute{
			ElementType: types.StringType, Optional: true,
			PlanModifiers: []planmodifier.Map{mapRequiresReplace()},
			MarkdownDescription: "Extra `mount -t s3files` options, the Python SDK's `extra_options`; they override the pattern's " +
				"`extra_options` key by key. A null value renders as a bare option (`iam`). Terraform maps are ordered by " +
				"key, so options render in key order, then `ro`, `mounttargetip=`, `accesspoint=`, `region=`. Changing it " +
				"replaces the mount.",
		}
	}
	return schema.Schema{
		MarkdownDescription: k.summary + "\n\nExactly one strategy block: `in_container` runs the mount helper inside the " +
			"running workspace (on a local workspace, on the host) and unmounts it on destroy; `docker_volume` creates a named " +
			"Docker volume with a volume driver, which the workspace attaches when its container is created. The Python SDK's " +
			"support matrix is checked at plan time: " + supportMatrixText(k.typ) + ".\n\nImport is not supported: " +
			"the credentials are write-only and the files a mount generates belong to its `session_id`; declare the mount " +
			"and apply.\n\nMount paths, strategies and credentials are explained in the [storage mounts guide](" + mountsGuide + ").",
		Attributes: attrs,
		Blocks: map[string]schema.Block{
			"in_container":  inContainerBlock(),
			"docker_volume": dockerVolumeBlock(),
		},
	}
}

func replaceObject() []planmodifier.Object {
	return []planmodifier.Object{objectplanmodifier.RequiresReplace()}
}

// noLineBreaks refuses line breaks, which would inject lines into the
// generated rclone config (design/sdk-model.md §5.8).
type noLineBreaks struct{}

func (noLineBreaks) Description(context.Context) string { return "must not contain line breaks" }

func (v noLineBreaks) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (noLineBreaks) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if strings.ContainsAny(req.ConfigValue.ValueString(), "\r\n") {
		resp.Diagnostics.AddAttributeError(req.Path, "Line break in a mount value",
			fmt.Sprintf("cloud mount configuration values must not contain line breaks (the Python SDK's rule): a line "+
				"break would add lines to the generated configuration; got %q", req.ConfigValue.ValueString()))
	}
}
