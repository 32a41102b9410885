package mount

import (
	"errors"
	"slices"
	"strings"
)

// This file sanitizes one mount entry of a raw manifest: the fields each
// model keeps, authority and unsafe values removed.

// Raw (decoded JSON) forms of the Python SDK's models, for durable-state
// sanitization: the serialized fields each model keeps.
var (
	rawMountCommonFields = []string{"type", "description", "ephemeral", "group", "is_dir", "permissions",
		"mount_path", "read_only", "mount_strategy"}
	rawMountFields = map[string][]string{
		TypeS3: {"bucket", "access_key_id", "secret_access_key", "session_token", "prefix", "region",
			"endpoint_url", "s3_provider"},
		TypeGCS: {"bucket", "access_id", "secret_access_key", "prefix", "region", "endpoint_url",
			"service_account_file", "service_account_credentials", "access_token"},
		TypeR2:        {"bucket", "account_id", "access_key_id", "secret_access_key", "custom_domain"},
		TypeAzureBlob: {"account", "container", "endpoint", "identity_client_id", "account_key"},
		TypeBox: {"path", "client_id", "client_secret", "access_token", "token", "box_config_file",
			"config_credentials", "box_sub_type", "root_folder_id", "impersonate", "owned_by"},
		TypeS3Files: {"file_system_id", "subpath", "mount_target_ip", "access_point", "region", "extra_options"},
	}
	// rawExtensionMountFields are the SDK extension mounts the Python SDK restores
	// without importing them.
	rawExtensionMountFields = map[string][]string{
		"blaxel_drive_mount": {"type", "description", "ephemeral", "group", "is_dir", "permissions", "mount_path",
			"read_only", "mount_strategy", "drive_name", "drive_mount_path", "drive_path", "drive_read_only"},
	}
	rawStrategyFields = map[string][]string{
		"in_container": {"type", "pattern"}, "docker_volume": {"type", "driver", "driver_options"},
		"blaxel_cloud_bucket": {"type"}, "blaxel_drive": {"type"}, "cloudflare_bucket_mount": {"type"},
		"daytona_cloud_bucket": {"type", "pattern"}, "e2b_cloud_bucket": {"type", "pattern"},
		"modal_cloud_bucket":   {"type", "secret_name", "secret_environment_name"},
		"runloop_cloud_bucket": {"type", "pattern"}, "vercel_cloud_bucket": {"type"},
	}
	rawOpaqueStrategyFields = map[string][]string{
		"docker_volume": {"driver_options"}, "modal_cloud_bucket": {"secret_name", "secret_environment_name"},
	}
	rawPatternFields = map[string][]string{
		PatternRclone:     {"type", "mode", "remote_name", "extra_args", "nfs_addr", "nfs_mount_options", "config_file_path"},
		PatternMountpoint: {"type", "options"},
		PatternFuse: {"type", "allow_other", "log_type", "log_level", "cache_type", "cache_path", "cache_size_mb",
			"block_cache_block_size_mb", "block_cache_disk_timeout_sec", "file_cache_timeout_sec",
			"file_cache_max_size_mb", "attr_cache_timeout_sec", "entry_cache_timeout_sec",
			"negative_entry_cache_timeout_sec"},
		PatternS3Files: {"type", "options"},
	}
	rawOptionFields = map[string][]string{
		PatternMountpoint: {"prefix", "region", "endpoint_url"},
		PatternS3Files:    {"mount_target_ip", "access_point", "region", "extra_options"},
	}
	// rawS3fsOptionFields may not hold "," under the blaxel_cloud_bucket
	// strategy.
	rawS3fsOptionFields = map[string][]string{TypeR2: {"custom_domain", "account_id"}, TypeS3: {"endpoint_url", "region"}}
)

func sanitizeRawMount(entry map[string]any, mountType string) (bool, []string, error) {
	redacted := false
	var filePaths []string
	if fields := rawExtensionMountFields[mountType]; fields != nil {
		redacted = stripUnknownFields(entry, fields)
	} else {
		redacted = stripUnknownFields(entry, append(append([]string(nil), rawMountCommonFields...), rawMountFields[mountType]...))
	}
	for _, name := range authorityFields[mountType] {
		v := entry[name]
		if v == nil {
			continue
		}
		entry[name], redacted = nil, true
		if slices.Contains(authorityFileFields[mountType], name) {
			s, ok := v.(string)
			if !ok {
				return false, nil, errors.New(msgRawFilePathShape)
			}
			filePaths = append(filePaths, s)
		}
	}
	for _, name := range urlFields[mountType] {
		if rawURLIsSensitive(entry[name]) {
			entry[name], redacted = nil, true
		}
	}
	for _, name := range rcloneValueFields[mountType] {
		if s, ok := entry[name].(string); ok && containsLineBreak(s) {
			entry[name], redacted = "", true
		}
	}
	if mountType == TypeS3Files && pyTruthy(entry["extra_options"]) {
		entry["extra_options"], redacted = map[string]any{}, true
	}
	rawStrategy := entry["mount_strategy"]
	strategy, ok := rawStrategy.(map[string]any)
	if !ok {
		if rawStrategy != nil {
			return false, nil, errors.New(msgRawStrategyShape)
		}
		return redacted, filePaths, nil
	}
	strategyType, typed := strategy["type"].(string)
	if !typed {
		strategy["type"], redacted = nil, true
	}
	if strategyType == "blaxel_cloud_bucket" {
		for _, name := range rawS3fsOptionFields[mountType] {
			if s, ok := entry[name].(string); ok && strings.Contains(s, ",") {
				return false, nil, errors.New(msgRawS3fsDelimiter)
			}
		}
	}
	strategyFields, known := rawStrategyFields[strategyType]
	if typed && !known {
		return false, nil, errors.New(msgRawUnknownStrategy)
	}
	if known {
		redacted = stripUnknownFields(strategy, strategyFields) || redacted
	}
	for _, name := range rawOpaqueStrategyFields[strategyType] {
		if v := strategy[name]; pyTruthy(v) {
			if _, isMap := v.(map[string]any); isMap {
				strategy[name] = map[string]any{}
			} else {
				strategy[name] = nil
			}
			redacted = true
		}
	}
	rawPattern := strategy["pattern"]
	pattern, ok := rawPattern.(map[string]any)
	if !ok {
		if rawPattern != nil {
			return false, nil, errors.New(msgRawPatternShape)
		}
		if !known {
			redacted = stripUnknownFields(strategy, []string{"type"}) || redacted
		}
		return redacted, filePaths, nil
	}
	r, paths, err := sanitizeRawPattern(pattern, mountType, strategyType)
	if err != nil {
		return false, nil, err
	}
	if !known {
		r = stripUnknownFields(strategy, []string{"type"}) || r
	}
	return redacted || r, append(filePaths, paths...), nil
}

func sanitizeRawPattern(pattern map[string]any, mountType, strategyType string) (bool, []string, error) {
	redacted := false
	var filePaths []string
	patternType, typed := pattern["type"].(string)
	if !typed {
		pattern["type"], redacted = nil, true
	}
	if c := findCapability(mountType, strategyType, patternType); c != nil && c.implicitBroad {
		redacted = true
	}
	patternFields := []string{"type"}
	if typed {
		if patternFields = rawPatternFields[patternType]; patternFields == nil {
			return false, nil, errors.New(msgRawUnknownPattern)
		}
	}
	if !rawRemoteNameIsSafe(pattern["remote_name"]) {
		pattern["remote_name"], redacted = nil, true
	}
	if v := pattern["config_file_path"]; v != nil {
		pattern["config_file_path"], redacted = nil, true
		s, ok := v.(string)
		if !ok {
			return false, nil, errors.New(msgRawConfigPathShape)
		}
		filePaths = append(filePaths, s)
	}
	extraArgs, present := pattern["extra_args"]
	safe, configPaths := !present, []string(nil)
	if list, ok := extraArgs.([]any); ok {
		var invalid bool
		safe, configPaths, invalid = analyzeExtraArgs(list)
		if invalid {
			return false, nil, errors.New(msgRawConfigArgShape)
		}
	}
	if !safe {
		if pyTruthy(extraArgs) {
			pattern["extra_args"], redacted = []any{}, true
		}
		filePaths = append(filePaths, configPaths...)
	}
	if options, ok := pattern["options"].(map[string]any); ok {
		if rawURLIsSensitive(options["endpoint_url"]) {
			options["endpoint_url"], redacted = nil, true
		}
		if pyTruthy(options["extra_options"]) && (mountType == TypeS3Files || patternType == PatternS3Files || !typed) {
			options["extra_options"], redacted = map[string]any{}, true
		}
		redacted = stripUnknownFields(options, rawOptionFields[patternType]) || redacted
	} else if pattern["options"] != nil {
		pattern["options"], redacted = map[string]any{}, true
	}
	redacted = stripUnknownFields(pattern, patternFields) || redacted
	return redacted, filePaths, nil
}

// stripUnknownFields deletes the keys of m not in keep and reports whether any
// went.
func stripUnknownFields(m map[string]any, keep []string) bool {
	stripped := false
	for k := range m {
		if !slices.Contains(keep, k) {
			delete(m, k)
			stripped = true
		}
	}
	return stripped
}
