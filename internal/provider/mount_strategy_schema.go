package provider

import (
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

// The schema of the mount strategy blocks, in_container and docker_volume,
// shared by every storage mount resource.

func optString(desc string) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, MarkdownDescription: desc, Validators: []validator.String{noLineBreaks{}}}
}

func optInt(desc string) schema.Int64Attribute {
	return schema.Int64Attribute{Optional: true, MarkdownDescription: desc, Validators: []validator.Int64{int64validator.AtLeast(0)}}
}

func mapRequiresReplace() planmodifier.Map { return mapplanmodifier.RequiresReplace() }

// inContainerBlock is the in_container strategy with its four pattern
// blocks (design/sdk-model.md §5.3, §5.5). Pattern defaults are the Python SDK's and are
// applied by the engine, so they read as null in plans.
func inContainerBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		PlanModifiers:       replaceObject(),
		MarkdownDescription: inContainerDescription,
		Blocks: map[string]schema.Block{
			"rclone": schema.SingleNestedBlock{
				MarkdownDescription: "`rclone mount` (mode `fuse`) or `rclone serve nfs` plus an NFS mount (mode `nfs`), with a " +
					"generated config written 0600 under `.sandbox-rclone-config/<session_id>/`. Needs `rclone` in the sandbox " +
					"(`required mount tool missing: rclone` otherwise) and, for `fuse`, `fusermount3`.",
				Attributes: map[string]schema.Attribute{
					"mode": schema.StringAttribute{Optional: true, Validators: []validator.String{stringvalidator.OneOf("fuse", "nfs")},
						MarkdownDescription: "`\"fuse\"` or `\"nfs\"`; null means the Python SDK's default `\"fuse\"`."},
					"remote_name": optString("rclone remote name; default `sandbox_<kind>_<session_id>`. Must match " +
						"`[A-Za-z0-9_][A-Za-z0-9_. -]*` (an on-the-fly remote such as `:s3,...` is refused)."),
					"extra_args": schema.ListAttribute{ElementType: types.StringType, Optional: true,
						MarkdownDescription: "Extra arguments after the generated ones. Only `--allow-other`, `--uid`, `--gid` " +
							"and `--buffer-size` (with a value) are accepted, with or without credentials: the Python SDK treats any " +
							"other argument as possible credential authority (`--config`, a header, ...) and refuses it. " +
							"Options such as `--vfs-cache-mode` are therefore not available here."},
					"nfs_addr": optString("Address `rclone serve nfs` listens on (mode `nfs`); null means `127.0.0.1:2049`."),
					"nfs_mount_options": schema.ListAttribute{ElementType: types.StringType, Optional: true,
						MarkdownDescription: "NFS mount options (mode `nfs`); null means `vers=4.1,tcp,port=<port>,soft,timeo=50,retrans=1`."},
					"config_file_path": optString("An rclone config file already in the sandbox to merge the generated remote " +
						"into; it must hold a `[<remote name>]` section. Paths inside the workspace root are refused, as the " +
						"Python SDK refuses credential files the manifest could write."),
				},
			},
			"mountpoint": schema.SingleNestedBlock{
				MarkdownDescription: "Mountpoint for Amazon S3 (`mount-s3`), for S3 and GCS. Keys, when set, go to an env file " +
					"written 0600 under `.sandbox-mountpoint-env/<session_id>/`, never on the command line. The mount's own " +
					"`prefix`, `region` and `endpoint_url` win over these options.",
				Attributes: map[string]schema.Attribute{
					"prefix":       optString("Key prefix (`--prefix`)."),
					"region":       optString("Region (`--region`)."),
					"endpoint_url": optString("Endpoint (`--endpoint-url`); a URL with user info or a query is refused."),
				},
			},
			"fuse": schema.SingleNestedBlock{
				MarkdownDescription: "blobfuse2, for Azure Blob: a YAML config written 0600 under " +
					"`.sandbox-blobfuse-config/<session_id>/`. Defaults are the Python SDK's.",
				Attributes: map[string]schema.Attribute{
					"allow_other": schema.BoolAttribute{Optional: true, MarkdownDescription: "`allow-other: true`; null means `true`."},
					"log_type":    optString("Logging type; null means `\"syslog\"`."),
					"log_level":   optString("Logging level; null means `\"log_debug\"`."),
					"cache_type": schema.StringAttribute{Optional: true,
						Validators:          []validator.String{stringvalidator.OneOf("block_cache", "file_cache")},
						MarkdownDescription: "`\"block_cache\"` or `\"file_cache\"`; null means `\"block_cache\"`."},
					"cache_path": optString("Cache directory relative to the workspace root, outside the mount path; null means " +
						"`.sandbox-blobfuse-cache/<session_id>/<account>/<container>`. Absolute paths and `..` are refused."),
					"cache_size_mb":                    optInt("Cache size in MiB; null or 0 means 50000 (block) or 4096 (file)."),
					"block_cache_block_size_mb":        optInt("Block size in MiB; null means 16."),
					"block_cache_disk_timeout_sec":     optInt("Disk cache timeout in seconds; null means 3600."),
					"file_cache_timeout_sec":           optInt("File cache timeout in seconds; null means 120."),
					"file_cache_max_size_mb":           optInt("File cache maximum in MiB; null or 0 means the cache size."),
					"attr_cache_timeout_sec":           optInt("Attribute cache timeout in seconds; null means 7200 (0 is kept)."),
					"entry_cache_timeout_sec":          optInt("libfuse `entry-expiration-sec`."),
					"negative_entry_cache_timeout_sec": optInt("libfuse `negative-entry-expiration-sec`."),
				},
			},
			"s3files": schema.SingleNestedBlock{
				MarkdownDescription: "`mount -t s3files` (the `mount.s3files` helper), for S3 Files. The mount's own fields " +
					"win over these options.",
				Attributes: map[string]schema.Attribute{
					"mount_target_ip": optString("`mounttargetip=` option."),
					"access_point":    optString("`accesspoint=` option."),
					"region":          optString("`region=` option."),
					"extra_options": schema.MapAttribute{ElementType: types.StringType, Optional: true,
						MarkdownDescription: "Extra options; a null value renders as a bare option."},
				},
			},
		},
	}
}

// dockerVolumeBlock is the docker_volume strategy (design/sdk-model.md §5.3, §5.6).
func dockerVolumeBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		PlanModifiers:       replaceObject(),
		MarkdownDescription: dockerVolumeDescription,
		Attributes: map[string]schema.Attribute{
			"driver": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Volume driver (the Python SDK's `driver`), required in this block: `\"rclone\"` or " +
					"`\"mountpoint\"` as the mount type supports; the driver plugin must be installed in the Docker daemon."},
			"driver_options": schema.MapAttribute{ElementType: types.StringType, Optional: true, Sensitive: true,
				MarkdownDescription: "Options merged over the generated ones (the Python SDK's `driver_options`). Sensitive, but " +
					"stored in state: put secrets in the `_wo` attributes."},
		},
	}
}

// supportMatrixText describes which patterns and drivers a type takes.
func supportMatrixText(typ string) string {
	ps, ds := mount.Patterns(typ), mount.Drivers(typ)
	out := "in_container patterns " + codeList(ps)
	if len(ds) == 0 {
		return out + "; no Docker volume driver"
	}
	return out + "; Docker volume drivers " + codeList(ds)
}

func codeList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = "`" + x + "`"
	}
	return strings.Join(q, ", ")
}
