package manifest

import (
	"sort"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// mountCommonFields are the fields every mount entry has after the common
// entry fields (design/sdk-model.md §5.1), in the Python SDK's order.
var mountCommonFields = []fieldSpec{
	optStr("mount_path"),
	defBool("read_only", true),
	{name: "mount_strategy", kind: fStrategy, required: true},
}

// mountProviders lists each mount type's own fields (design/sdk-model.md §5.4) and the
// strategies it supports: in-container pattern types and Docker volume
// drivers.
var mountProviders = map[string]struct {
	fields   []fieldSpec
	patterns []string
	drivers  []string
}{
	"s3_mount": {
		fields: []fieldSpec{reqStr("bucket"), optStr("access_key_id"), optStr("secret_access_key"), optStr("session_token"),
			optStr("prefix"), optStr("region"), optStr("endpoint_url"), defStr("s3_provider", "AWS")},
		patterns: []string{"rclone", "mountpoint"}, drivers: []string{"mountpoint", "rclone"},
	},
	"gcs_mount": {
		fields: []fieldSpec{reqStr("bucket"), optStr("access_id"), optStr("secret_access_key"), optStr("prefix"),
			optStr("region"), optStr("endpoint_url"), optStr("service_account_file"), optStr("service_account_credentials"),
			optStr("access_token")},
		patterns: []string{"rclone", "mountpoint"}, drivers: []string{"mountpoint", "rclone"},
	},
	"r2_mount": {
		fields: []fieldSpec{reqStr("bucket"), reqStr("account_id"), optStr("access_key_id"), optStr("secret_access_key"),
			optStr("custom_domain")},
		patterns: []string{"rclone"}, drivers: []string{"rclone"},
	},
	"azure_blob_mount": {
		fields: []fieldSpec{reqStr("account"), reqStr("container"), optStr("endpoint"), optStr("identity_client_id"),
			optStr("account_key")},
		patterns: []string{"rclone", "fuse"}, drivers: []string{"rclone"},
	},
	"box_mount": {
		fields: []fieldSpec{optStr("path"), optStr("client_id"), optStr("client_secret"), optStr("access_token"),
			optStr("token"), optStr("box_config_file"), optStr("config_credentials"),
			literal("box_sub_type", "user", "user", "enterprise"), optStr("root_folder_id"), optStr("impersonate"),
			optStr("owned_by")},
		patterns: []string{"rclone"}, drivers: []string{"rclone"},
	},
	"s3_files_mount": {
		fields: []fieldSpec{reqStr("file_system_id"), optStr("subpath"), optStr("mount_target_ip"), optStr("access_point"),
			optStr("region"), strNullMap("extra_options")},
		patterns: []string{"s3files"},
	},
}

// mountPatterns are the in-container pattern models (design/sdk-model.md §5.5), tagged by
// their "type", with their fields in the Python SDK's order.
var mountPatterns = map[string][]fieldSpec{
	"rclone": {literal("mode", "fuse", "fuse", "nfs"), optStr("remote_name"), strList("extra_args"), optStr("nfs_addr"),
		optStrList("nfs_mount_options"), optStr("config_file_path")},
	"mountpoint": {object("options", optStr("prefix"), optStr("region"), optStr("endpoint_url"))},
	"fuse": {defBool("allow_other", true), defStr("log_type", "syslog"), defStr("log_level", "log_debug"),
		literal("cache_type", "block_cache", "block_cache", "file_cache"), optStr("cache_path"), optInt("cache_size_mb"),
		defInt("block_cache_block_size_mb", 16), defInt("block_cache_disk_timeout_sec", 3600),
		defInt("file_cache_timeout_sec", 120), optInt("file_cache_max_size_mb"), optInt("attr_cache_timeout_sec"),
		optInt("entry_cache_timeout_sec"), optInt("negative_entry_cache_timeout_sec")},
	"s3files": {object("options", optStr("mount_target_ip"), optStr("access_point"), optStr("region"),
		strNullMap("extra_options"))},
}

// mountStrategies are the core strategy models (design/sdk-model.md §5.3).
var mountStrategies = map[string][]fieldSpec{
	"in_container":  {{name: "pattern", kind: fStrategy, required: true}},
	"docker_volume": {reqStr("driver"), strMap("driver_options")},
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// MountSupport returns the in-container pattern types and the Docker volume
// drivers mountType supports (design/sdk-model.md §5.4), in the Python SDK's order, as fresh
// slices; ok is false for a type that is not a mount type. s3_files_mount
// has no driver (drivers is empty). Follows the Python SDK's
// supported_in_container_patterns / supported_docker_volume_drivers. The mount
// package validates mounts against this same table.
func MountSupport(mountType string) (patterns, drivers []string, ok bool) {
	p, ok := mountProviders[mountType]
	if !ok {
		return nil, nil, false
	}
	return append([]string{}, p.patterns...), append([]string{}, p.drivers...), true
}

// parseStrategy reads a mount_strategy (or, below it, a pattern) mapping:
// the tag decides the model; its fields follow. The strategy is checked
// against the mount type's support matrix, as the Python SDK does at
// construction (MountConfigError "invalid mount_pattern type" or "invalid
// Docker volume driver").
func parseStrategy(raw any, loc []string, ctx *fieldCtx) (any, error) {
	isPattern := loc[len(loc)-1] == "pattern"
	registry, what := mountStrategies, "mount strategy"
	if isPattern {
		registry, what = mountPatterns, "mount pattern"
	}
	obj, ok := raw.(*orderedObject)
	if !ok {
		return nil, valueError(loc, what+" payload must be a mapping, got "+pyTypeName(raw))
	}
	tag, ok := obj.get("type").(string)
	if !ok {
		return nil, valueError(loc, what+" payload must include a string `type` field")
	}
	specs, ok := registry[tag]
	if !ok {
		return nil, valueError(loc, "Unknown "+what+" type `"+tag+"`. Registered types: "+strings.Join(sortedKeys(registry), ", "))
	}
	out, err := parseFields(obj, specs, loc, ctx)
	if err != nil {
		return nil, err
	}
	typed := newObject().set("type", tag)
	for _, k := range out.keys {
		typed.set(k, out.vals[k])
	}
	if err := checkStrategySupport(ctx.mountType, isPattern, typed); err != nil {
		return nil, err
	}
	return typed, nil
}

func checkStrategySupport(mountType string, isPattern bool, s *orderedObject) error {
	prov, ok := mountProviders[mountType]
	if !ok {
		return nil
	}
	tag, _ := s.get("type").(string)
	switch {
	case isPattern && !contains(prov.patterns, tag):
		return mountConfigError("invalid mount_pattern type", map[string]any{"type": mountType})
	case !isPattern && tag == "docker_volume":
		if driver, _ := s.get("driver").(string); !contains(prov.drivers, driver) {
			return mountConfigError("invalid Docker volume driver", map[string]any{"type": mountType, "driver": driver})
		}
	}
	return nil
}

// mountConfigError is the Python SDK's MountConfigError.
func mountConfigError(msg string, ctx map[string]any) *sandbox.Error {
	retryable := false
	return &sandbox.Error{Code: sandbox.CodeMountConfigInvalid, Op: "materialize", Message: msg, Context: ctx, Retryable: &retryable}
}
