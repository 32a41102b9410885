package mount

import (
	"slices"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// NewConfigError builds the Python SDK's MountConfigError: Code
// sandbox.CodeMountConfigInvalid, Op "materialize", not retryable, the
// given message and context (nil becomes an empty map).
func NewConfigError(msg string, ctx map[string]any) *sandbox.Error {
	if ctx == nil {
		ctx = map[string]any{}
	}
	no := false
	return &sandbox.Error{Code: sandbox.CodeMountConfigInvalid, Op: "materialize", Message: msg, Context: ctx, Retryable: &no}
}

// Patterns returns the in-container pattern types (Pattern* constants) that
// mountType supports, in the Python SDK's order; nil for an unknown type. Follows
// the Python SDK's supported_in_container_patterns (design/sdk-model.md §5.4).
func Patterns(mountType string) []string {
	p, _, _ := manifest.MountSupport(mountType)
	return p
}

// Drivers returns the Docker volume drivers mountType supports, in the
// Python SDK's order; empty for s3_files_mount and nil for an unknown type.
// Follows the Python SDK's supported_docker_volume_drivers (design/sdk-model.md §5.4).
func Drivers(mountType string) []string {
	_, d, _ := manifest.MountSupport(mountType)
	return d
}

// PermissionsWarning is the warning the Python SDK emits when a mount entry is
// given permissions other than owner 7, group 5, other 5.
const PermissionsWarning = "Mount permissions are not enforced. Please configure access in the cloud provider " +
	"instead; mount-level permissions can be unreliable."

// Permissions returns the permissions a mount entry really has whatever was
// asked: owner 7, group 5, other 5, directory ("drwxr-xr-x"). warn is true
// when requested differs in owner, group or other, the case where the Python SDK
// emits PermissionsWarning. Follows the Python SDK's Mount.model_post_init
// (design/sdk-model.md §5.1).
func Permissions(requested posix.Permissions) (effective posix.Permissions, warn bool) {
	warn = requested.Owner != 7 || requested.Group != 5 || requested.Other != 5
	return posix.Permissions{Owner: 7, Group: 5, Other: 5, Directory: true}, warn
}

// Validate checks a mount the way the Python SDK does when it builds the models
// and the runtime configs, and returns the first failure as a
// *sandbox.Error with Code sandbox.CodeMountConfigInvalid (NewConfigError):
//
//   - Type must be a Type* constant and the matching provider pointer set
//     ("unknown mount type" {type}, "mount type fields are missing" {type});
//   - required provider fields must be non-empty: bucket, account_id,
//     account, container, file_system_id ("<field> is required" {type,
//     field}); the Python SDK only requires them to be present, an empty value
//     cannot name anything to mount;
//   - box_sub_type is "" (meaning "user"), "user" or "enterprise"
//     ("invalid box_sub_type" {type, box_sub_type});
//   - the strategy: in_container needs a pattern whose type the mount
//     supports ("invalid mount_pattern type" {type}); docker_volume needs a
//     supported driver ("invalid Docker volume driver" {type, driver});
//     any other strategy type → "invalid mount_strategy type" {type,
//     strategy};
//   - pattern fields: rclone mode "", "fuse" or "nfs" ("invalid rclone
//     mode" {mode}); fuse as FusePattern.Validate;
//   - R2: access_key_id and secret_access_key both set or both unset ("r2
//     credentials must include both access_key_id and secret_access_key"
//     {type}), which the Python SDK checks when building either strategy's config.
//
// Follows the Python SDK's Mount.model_post_init, the strategies' validate_mount
// and the providers' pydantic fields (design/sdk-model.md §5.1, §5.3–§5.5).
func (m *Mount) Validate() error {
	if err := m.validateFields(); err != nil {
		return err
	}
	if err := m.validateStrategy(); err != nil {
		return err
	}
	if m.Type == TypeR2 {
		return validateR2Pair(m.R2)
	}
	return nil
}

func (m *Mount) validateFields() error {
	if _, _, ok := manifest.MountSupport(m.Type); !ok {
		return NewConfigError("unknown mount type", map[string]any{"type": m.Type})
	}
	var required [][2]string
	switch m.Type {
	case TypeS3:
		if m.S3 != nil {
			required = [][2]string{{"bucket", m.S3.Bucket}}
		}
	case TypeGCS:
		if m.GCS != nil {
			required = [][2]string{{"bucket", m.GCS.Bucket}}
		}
	case TypeR2:
		if m.R2 != nil {
			required = [][2]string{{"bucket", m.R2.Bucket}, {"account_id", m.R2.AccountID}}
		}
	case TypeAzureBlob:
		if m.AzureBlob != nil {
			required = [][2]string{{"account", m.AzureBlob.Account}, {"container", m.AzureBlob.Container}}
		}
	case TypeBox:
		if m.Box != nil {
			if st := m.Box.BoxSubType; st != "" && st != "user" && st != "enterprise" {
				return NewConfigError("invalid box_sub_type", map[string]any{"type": m.Type, "box_sub_type": st})
			}
			required = [][2]string{}
		}
	case TypeS3Files:
		if m.S3Files != nil {
			required = [][2]string{{"file_system_id", m.S3Files.FileSystemID}}
		}
	}
	if required == nil {
		return NewConfigError("mount type fields are missing", map[string]any{"type": m.Type})
	}
	for _, f := range required {
		if strings.TrimSpace(f[1]) == "" {
			return NewConfigError(f[0]+" is required", map[string]any{"type": m.Type, "field": f[0]})
		}
	}
	return nil
}

func (m *Mount) validateStrategy() error {
	switch s := m.Strategy; s.Type {
	case StrategyInContainer:
		if s.Pattern == nil || !slices.Contains(Patterns(m.Type), s.Pattern.Type) {
			return NewConfigError("invalid mount_pattern type", map[string]any{"type": m.Type})
		}
		return s.Pattern.validate()
	case StrategyDockerVolume:
		if !slices.Contains(Drivers(m.Type), s.Driver) {
			return NewConfigError("invalid Docker volume driver", map[string]any{"type": m.Type, "driver": s.Driver})
		}
		return nil
	default:
		return NewConfigError("invalid mount_strategy type", map[string]any{"type": m.Type, "strategy": s.Type})
	}
}

func (p *Pattern) validate() error {
	switch p.Type {
	case PatternRclone:
		if p.Rclone != nil {
			if mode := p.Rclone.Mode; mode != "" && mode != "fuse" && mode != "nfs" {
				return NewConfigError("invalid rclone mode", map[string]any{"mode": mode})
			}
		}
	case PatternFuse:
		if p.Fuse != nil {
			return p.Fuse.Validate()
		}
	}
	return nil
}

// Validate checks the fuse pattern's own fields as the Python SDK does when it
// builds the pattern: CacheType must be "block_cache", "file_cache" or ""
// (meaning "block_cache") ("invalid fuse cache_type" {cache_type}); CachePath, when set, must be
// relative to the workspace root: a Windows-absolute path, a POSIX-absolute
// path or one with a ".." segment → "blobfuse cache_path must be relative to
// the workspace root" {cache_path: the path with "/" separators}. Follows
// the Python SDK's FuseMountPattern.model_post_init.
func (p *FusePattern) Validate() error {
	if p.CacheType != "" && p.CacheType != "block_cache" && p.CacheType != "file_cache" {
		return NewConfigError("invalid fuse cache_type", map[string]any{"cache_type": p.CacheType})
	}
	if p.CachePath == nil {
		return nil
	}
	const msg = "blobfuse cache_path must be relative to the workspace root"
	if win, ok := posix.WindowsAbsoluteAsPosix(*p.CachePath); ok {
		return NewConfigError(msg, map[string]any{"cache_path": win})
	}
	cp := posix.PurePosix(*p.CachePath)
	if strings.HasPrefix(cp, "/") || slices.Contains(strings.Split(cp, "/"), "..") {
		return NewConfigError(msg, map[string]any{"cache_path": cp})
	}
	return nil
}

// validateR2Pair is the Python SDK's R2Mount._validate_credential_pair.
func validateR2Pair(r *R2) error {
	if (r.AccessKeyID == nil) != (r.SecretAccessKey == nil) {
		return NewConfigError("r2 credentials must include both access_key_id and secret_access_key",
			map[string]any{"type": TypeR2})
	}
	return nil
}

// truthy is Python truthiness for an optional string: set and non-empty.
func truthy(p *string) bool { return p != nil && *p != "" }

// pyOr is Python's `a or b` for optional strings.
func pyOr(a, b *string) *string {
	if truthy(a) {
		return a
	}
	return b
}

func strp(s string) *string { return &s }

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
