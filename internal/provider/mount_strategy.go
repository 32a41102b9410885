package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

type inContainerModel struct {
	Rclone     types.Object `tfsdk:"rclone"`
	Mountpoint types.Object `tfsdk:"mountpoint"`
	Fuse       types.Object `tfsdk:"fuse"`
	S3Files    types.Object `tfsdk:"s3files"`
}

type rcloneModel struct {
	Mode            types.String `tfsdk:"mode"`
	RemoteName      types.String `tfsdk:"remote_name"`
	ExtraArgs       types.List   `tfsdk:"extra_args"`
	NFSAddr         types.String `tfsdk:"nfs_addr"`
	NFSMountOptions types.List   `tfsdk:"nfs_mount_options"`
	ConfigFilePath  types.String `tfsdk:"config_file_path"`
}

type mountpointModel struct {
	Prefix      types.String `tfsdk:"prefix"`
	Region      types.String `tfsdk:"region"`
	EndpointURL types.String `tfsdk:"endpoint_url"`
}

type fuseModel struct {
	AllowOther                   types.Bool   `tfsdk:"allow_other"`
	LogType                      types.String `tfsdk:"log_type"`
	LogLevel                     types.String `tfsdk:"log_level"`
	CacheType                    types.String `tfsdk:"cache_type"`
	CachePath                    types.String `tfsdk:"cache_path"`
	CacheSizeMB                  types.Int64  `tfsdk:"cache_size_mb"`
	BlockCacheBlockSizeMB        types.Int64  `tfsdk:"block_cache_block_size_mb"`
	BlockCacheDiskTimeoutSec     types.Int64  `tfsdk:"block_cache_disk_timeout_sec"`
	FileCacheTimeoutSec          types.Int64  `tfsdk:"file_cache_timeout_sec"`
	FileCacheMaxSizeMB           types.Int64  `tfsdk:"file_cache_max_size_mb"`
	AttrCacheTimeoutSec          types.Int64  `tfsdk:"attr_cache_timeout_sec"`
	EntryCacheTimeoutSec         types.Int64  `tfsdk:"entry_cache_timeout_sec"`
	NegativeEntryCacheTimeoutSec types.Int64  `tfsdk:"negative_entry_cache_timeout_sec"`
}

type s3filesModel struct {
	MountTargetIP types.String `tfsdk:"mount_target_ip"`
	AccessPoint   types.String `tfsdk:"access_point"`
	Region        types.String `tfsdk:"region"`
	ExtraOptions  types.Map    `tfsdk:"extra_options"`
}

type dockerVolumeModel struct {
	Driver        types.String `tfsdk:"driver"`
	DriverOptions types.Map    `tfsdk:"driver_options"`
}

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

// strPtr returns the value of a known, non-null string, else nil.
func strPtr(v types.String) *string {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	s := v.ValueString()
	return &s
}

func intPtr(v types.Int64) *int64 {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	n := v.ValueInt64()
	return &n
}

func intOr(v types.Int64, def int64) int64 {
	if p := intPtr(v); p != nil {
		return *p
	}
	return def
}

func stringList(ctx context.Context, l types.List, diags *diag.Diagnostics) []string {
	if l.IsNull() || l.IsUnknown() {
		return nil
	}
	var out []string
	diags.Append(l.ElementsAs(ctx, &out, false)...)
	return out
}

// optionList turns a map of possibly-null strings into ordered options
// (Terraform maps are ordered by key).
func optionList(m types.Map) []mount.Option {
	if m.IsNull() || m.IsUnknown() {
		return nil
	}
	elems := m.Elements()
	var out []mount.Option
	for _, k := range sandboxSortedKeys(elems) {
		s, _ := elems[k].(types.String)
		out = append(out, mount.Option{Key: k, Value: strPtr(s)})
	}
	return out
}

func sandboxSortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// strategyFrom reads the strategy blocks into an engine strategy. It
// reports structural problems (no block, two blocks, no or two patterns)
// as attribute errors and returns ok=false; unknown values give ok=false
// without an error.
func strategyFrom(ctx context.Context, inC, dv types.Object, diags *diag.Diagnostics) (mount.Strategy, bool) {
	if inC.IsUnknown() || dv.IsUnknown() {
		return mount.Strategy{}, false
	}
	switch {
	case inC.IsNull() && dv.IsNull():
		diags.AddError("Missing mount strategy", "a mount needs exactly one strategy block: in_container { ... } or "+
			"docker_volume { ... } (the Python SDK's mount_strategy is required)")
		return mount.Strategy{}, false
	case !inC.IsNull() && !dv.IsNull():
		diags.AddAttributeError(pathOf("docker_volume"), "Two mount strategies",
			"in_container and docker_volume cannot both be set: a mount has one mount_strategy")
		return mount.Strategy{}, false
	case !dv.IsNull():
		var d dockerVolumeModel
		diags.Append(dv.As(ctx, &d, basetypes.ObjectAsOptions{})...)
		if d.Driver.IsUnknown() || d.DriverOptions.IsUnknown() {
			return mount.Strategy{}, false
		}
		if d.Driver.IsNull() || d.Driver.ValueString() == "" {
			diags.AddAttributeError(pathOf("docker_volume", "driver"), "Missing volume driver",
				"docker_volume needs a driver, such as driver = \"rclone\"")
			return mount.Strategy{}, false
		}
		opts := map[string]string{}
		for k, v := range d.DriverOptions.Elements() {
			if s, ok := v.(types.String); ok && !s.IsUnknown() {
				opts[k] = s.ValueString()
			} else if ok {
				return mount.Strategy{}, false
			}
		}
		return mount.Strategy{Type: mount.StrategyDockerVolume, Driver: d.Driver.ValueString(), DriverOptions: opts}, !diags.HasError()
	}
	var ic inContainerModel
	diags.Append(inC.As(ctx, &ic, basetypes.ObjectAsOptions{})...)
	if diags.HasError() {
		return mount.Strategy{}, false
	}
	set := map[string]types.Object{"rclone": ic.Rclone, "mountpoint": ic.Mountpoint, "fuse": ic.Fuse, "s3files": ic.S3Files}
	var chosen []string
	for _, name := range []string{"rclone", "mountpoint", "fuse", "s3files"} {
		if set[name].IsUnknown() {
			return mount.Strategy{}, false
		}
		if !set[name].IsNull() {
			chosen = append(chosen, name)
		}
	}
	if len(chosen) != 1 {
		diags.AddAttributeError(pathOf("in_container"), "Exactly one mount pattern",
			fmt.Sprintf("in_container needs exactly one pattern block (rclone, mountpoint, fuse or s3files); got %d", len(chosen)))
		return mount.Strategy{}, false
	}
	p, ok := patternFrom(ctx, chosen[0], set[chosen[0]], diags)
	return mount.Strategy{Type: mount.StrategyInContainer, Pattern: p}, ok && !diags.HasError()
}

func patternFrom(ctx context.Context, name string, o types.Object, diags *diag.Diagnostics) (*mount.Pattern, bool) {
	p := &mount.Pattern{Type: name}
	switch name {
	case "rclone":
		var r rcloneModel
		diags.Append(o.As(ctx, &r, basetypes.ObjectAsOptions{})...)
		mode := "fuse"
		if s := strPtr(r.Mode); s != nil {
			mode = *s
		}
		p.Rclone = &mount.RclonePattern{Mode: mode, RemoteName: strPtr(r.RemoteName), ExtraArgs: stringList(ctx, r.ExtraArgs, diags),
			NFSAddr: strPtr(r.NFSAddr), NFSMountOptions: stringList(ctx, r.NFSMountOptions, diags), ConfigFilePath: strPtr(r.ConfigFilePath)}
		return p, !anyUnknown(r.Mode, r.RemoteName, r.NFSAddr, r.ConfigFilePath) && !r.ExtraArgs.IsUnknown() && !r.NFSMountOptions.IsUnknown()
	case "mountpoint":
		var m mountpointModel
		diags.Append(o.As(ctx, &m, basetypes.ObjectAsOptions{})...)
		p.Mountpoint = &mount.MountpointOptions{Prefix: strPtr(m.Prefix), Region: strPtr(m.Region), EndpointURL: strPtr(m.EndpointURL)}
		return p, !anyUnknown(m.Prefix, m.Region, m.EndpointURL)
	case "fuse":
		var f fuseModel
		diags.Append(o.As(ctx, &f, basetypes.ObjectAsOptions{})...)
		d := mount.DefaultFusePattern()
		if !f.AllowOther.IsNull() {
			d.AllowOther = f.AllowOther.ValueBool()
		}
		if s := strPtr(f.LogType); s != nil {
			d.LogType = *s
		}
		if s := strPtr(f.LogLevel); s != nil {
			d.LogLevel = *s
		}
		if s := strPtr(f.CacheType); s != nil {
			d.CacheType = *s
		}
		d.CachePath, d.CacheSizeMB = strPtr(f.CachePath), intPtr(f.CacheSizeMB)
		d.BlockCacheBlockSizeMB = intOr(f.BlockCacheBlockSizeMB, d.BlockCacheBlockSizeMB)
		d.BlockCacheDiskTimeoutSec = intOr(f.BlockCacheDiskTimeoutSec, d.BlockCacheDiskTimeoutSec)
		d.FileCacheTimeoutSec = intOr(f.FileCacheTimeoutSec, d.FileCacheTimeoutSec)
		d.FileCacheMaxSizeMB, d.AttrCacheTimeoutSec = intPtr(f.FileCacheMaxSizeMB), intPtr(f.AttrCacheTimeoutSec)
		d.EntryCacheTimeoutSec, d.NegativeEntryCacheTimeoutSec = intPtr(f.EntryCacheTimeoutSec), intPtr(f.NegativeEntryCacheTimeoutSec)
		p.Fuse = &d
		return p, !anyUnknown(f.LogType, f.LogLevel, f.CacheType, f.CachePath)
	default:
		var s s3filesModel
		diags.Append(o.As(ctx, &s, basetypes.ObjectAsOptions{})...)
		p.S3Files = &mount.S3FilesOptions{MountTargetIP: strPtr(s.MountTargetIP), AccessPoint: strPtr(s.AccessPoint),
			Region: strPtr(s.Region), ExtraOptions: optionList(s.ExtraOptions)}
		return p, !anyUnknown(s.MountTargetIP, s.AccessPoint, s.Region) && !s.ExtraOptions.IsUnknown()
	}
}

func anyUnknown(vs ...types.String) bool {
	for _, v := range vs {
		if v.IsUnknown() {
			return true
		}
	}
	return false
}

// mountPathValidator refuses Windows paths in mount_path at plan time (the
// Python SDK's `absolute` reason); other checks need the workspace root.
type mountPathValidator struct{}

func (mountPathValidator) Description(context.Context) string {
	return "must be a POSIX path (relative to the root, or absolute)"
}

func (v mountPathValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (mountPathValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := (mountPathValidator{}).problem(req.ConfigValue.ValueString()); err != nil {
		addEngineAttributeError(&resp.Diagnostics, req.Path, "Invalid mount_path", err)
	}
}

// problem returns what is wrong with a mount_path on its own, or nil.
func (mountPathValidator) problem(raw string) error {
	if _, err := mount.ResolveMountPath("/workspace", &raw, "/workspace"); err != nil {
		return err
	}
	if raw == "" || strings.ContainsRune(raw, 0) {
		return fmt.Errorf("mount_path %q must be a non-empty path", raw)
	}
	return nil
}
