// Package mount is the engine's model of cloud storage mounts (design/sdk-model.md §5): the
// six mount types and their fields, the in-container patterns (rclone,
// mountpoint, fuse/blobfuse2, s3files) and the docker_volume strategy, the
// support matrix, the generated artefacts (rclone config text, mount-s3
// argument vectors and env files, blobfuse2 YAML, s3files options, Docker
// volume driver options and names), the commands that mount and unmount,
// error redaction and the credential boundary. It knows nothing about
// Terraform; it reaches a workspace only through the Session interface.
package mount

import "context"

// Mount types, the Python SDK's entry "type" tags (design/sdk-model.md §5.4).
const (
	TypeS3        = "s3_mount"
	TypeGCS       = "gcs_mount"
	TypeR2        = "r2_mount"
	TypeAzureBlob = "azure_blob_mount"
	TypeBox       = "box_mount"
	TypeS3Files   = "s3_files_mount"
)

// Strategy types (design/sdk-model.md §5.3) and pattern types (design/sdk-model.md §5.5).
const (
	StrategyInContainer  = "in_container"
	StrategyDockerVolume = "docker_volume"

	PatternRclone     = "rclone"
	PatternMountpoint = "mountpoint"
	PatternFuse       = "fuse"
	PatternS3Files    = "s3files"
)

// Mount is one storage mount entry: the common fields of design/sdk-model.md §5.1, the
// strategy, and exactly one provider's fields (the pointer matching Type).
// Optional Python SDK fields that default to null are nil pointers.
type Mount struct {
	// Type is one of the Type* constants.
	Type string
	// MountPath overrides where the mount lands (design/sdk-model.md §5.2); nil means the
	// entry's own path.
	MountPath *string
	// ReadOnly defaults to true in the Python SDK.
	ReadOnly bool
	// Strategy says how the mount is attached.
	Strategy Strategy

	S3        *S3
	GCS       *GCS
	R2        *R2
	AzureBlob *AzureBlob
	Box       *Box
	S3Files   *S3Files
}

// S3 holds s3_mount's fields; S3Provider defaults to "AWS".
type S3 struct {
	Bucket                                                               string
	AccessKeyID, SecretAccessKey, SessionToken, Prefix, Region, Endpoint *string
	S3Provider                                                           string
}

// GCS holds gcs_mount's fields. It uses rclone's S3-compatible (HMAC) mode
// iff both AccessID and SecretAccessKey are set.
type GCS struct {
	Bucket                                                     string
	AccessID, SecretAccessKey, Prefix, Region, EndpointURL     *string
	ServiceAccountFile, ServiceAccountCredentials, AccessToken *string
}

// R2 holds r2_mount's fields.
type R2 struct {
	Bucket, AccountID                          string
	AccessKeyID, SecretAccessKey, CustomDomain *string
}

// AzureBlob holds azure_blob_mount's fields.
type AzureBlob struct {
	Account, Container                     string
	Endpoint, IdentityClientID, AccountKey *string
}

// Box holds box_mount's fields; BoxSubType defaults to "user".
type Box struct {
	Path, ClientID, ClientSecret, AccessToken, Token, BoxConfigFile, ConfigCredentials *string
	BoxSubType                                                                         string
	RootFolderID, Impersonate, OwnedBy                                                 *string
}

// Option is one key of an ordered option map whose values may be null
// (S3 Files extra_options: a nil Value renders as a bare key).
type Option struct {
	Key   string
	Value *string
}

// S3Files holds s3_files_mount's fields.
type S3Files struct {
	FileSystemID                                string
	Subpath, MountTargetIP, AccessPoint, Region *string
	ExtraOptions                                []Option
}

// Strategy is a mount_strategy: Type is StrategyInContainer (Pattern set) or
// StrategyDockerVolume (Driver and DriverOptions set).
type Strategy struct {
	Type          string
	Pattern       *Pattern
	Driver        string
	DriverOptions map[string]string
}

// Pattern is an in-container pattern: Type selects which pointer is set.
type Pattern struct {
	Type       string
	Rclone     *RclonePattern
	Mountpoint *MountpointOptions
	Fuse       *FusePattern
	S3Files    *S3FilesOptions
}

// RclonePattern is the rclone pattern; Mode is "fuse" (default) or "nfs".
type RclonePattern struct {
	Mode            string
	RemoteName      *string
	ExtraArgs       []string
	NFSAddr         *string
	NFSMountOptions []string // nil means the Python SDK's default options
	ConfigFilePath  *string
}

// MountpointOptions are the mountpoint pattern's options (all nullable);
// the mount's own fields win over them.
type MountpointOptions struct {
	Prefix, Region, EndpointURL *string
}

// FusePattern is the blobfuse2 pattern with the Python SDK's defaults
// (DefaultFusePattern).
type FusePattern struct {
	AllowOther                                                           bool
	LogType, LogLevel                                                    string
	CacheType                                                            string // "block_cache" or "file_cache"
	CachePath                                                            *string
	CacheSizeMB                                                          *int64
	BlockCacheBlockSizeMB, BlockCacheDiskTimeoutSec, FileCacheTimeoutSec int64
	FileCacheMaxSizeMB, AttrCacheTimeoutSec                              *int64
	EntryCacheTimeoutSec, NegativeEntryCacheTimeoutSec                   *int64
}

// DefaultFusePattern returns the fuse pattern with the Python SDK's defaults.
func DefaultFusePattern() FusePattern {
	return FusePattern{AllowOther: true, LogType: "syslog", LogLevel: "log_debug", CacheType: "block_cache",
		BlockCacheBlockSizeMB: 16, BlockCacheDiskTimeoutSec: 3600, FileCacheTimeoutSec: 120}
}

// S3FilesOptions are the s3files pattern's options.
type S3FilesOptions struct {
	MountTargetIP, AccessPoint, Region *string
	ExtraOptions                       []Option
}

// ExecResult is what a command run in the workspace returned.
type ExecResult struct {
	ExitCode       int
	Stdout, Stderr []byte
}

// Session is the running workspace a mount is applied to: the Python SDK's
// session seen from a mount helper. The workspace engine implements it over
// a backend; tests record its calls.
type Session interface {
	// Root is the absolute workspace root as seen inside the workspace.
	Root() string
	// Exec runs argv (no shell) inside the workspace as its default user.
	Exec(ctx context.Context, argv []string) (ExecResult, error)
	// WriteFile writes content to rel (relative to Root), creating it
	// owner-only (0600) from the start; the Python SDK then also runs
	// chmod 0600 through Exec.
	WriteFile(ctx context.Context, rel string, content []byte) error
	// ReadFile reads rel (relative to Root, or absolute) from the
	// workspace; used for an rclone config_file_path.
	ReadFile(ctx context.Context, path string) ([]byte, error)
}
