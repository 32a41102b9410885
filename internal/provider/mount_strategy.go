package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

// The models of the strategy blocks (mount_strategy_schema.go), and how
// they are read into the engine's mount.Strategy.

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
