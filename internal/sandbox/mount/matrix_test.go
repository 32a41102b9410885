package mount_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

func sp(s string) *string { return &s }

func inContainer(pattern string) mount.Strategy {
	p := &mount.Pattern{Type: pattern}
	switch pattern {
	case mount.PatternRclone:
		p.Rclone = &mount.RclonePattern{Mode: "fuse"}
	case mount.PatternFuse:
		f := mount.DefaultFusePattern()
		p.Fuse = &f
	}
	return mount.Strategy{Type: mount.StrategyInContainer, Pattern: p}
}

func docker(driver string) mount.Strategy {
	return mount.Strategy{Type: mount.StrategyDockerVolume, Driver: driver}
}

// wantConfigError checks that err is a MountConfigError with msg and ctx.
func wantConfigError(t *testing.T, err error, msg string, ctx map[string]any) {
	t.Helper()
	var se *sandbox.Error
	if !errors.As(err, &se) {
		t.Fatalf("got %v, want MountConfigError %q", err, msg)
	}
	if se.Code != sandbox.CodeMountConfigInvalid || se.Op != "materialize" || se.Retryable == nil || *se.Retryable {
		t.Errorf("code/op/retryable: %s %s %v", se.Code, se.Op, se.Retryable)
	}
	if se.Message != msg {
		t.Errorf("message: got %q, want %q", se.Message, msg)
	}
	if ctx != nil && !reflect.DeepEqual(se.Context, ctx) {
		t.Errorf("context: got %v, want %v", se.Context, ctx)
	}
}

func TestValidateMatrix(t *testing.T) {
	s3 := func(s mount.Strategy) *mount.Mount {
		return &mount.Mount{Type: mount.TypeS3, S3: &mount.S3{Bucket: "b"}, Strategy: s}
	}
	gcs := func(s mount.Strategy) *mount.Mount {
		return &mount.Mount{Type: mount.TypeGCS, GCS: &mount.GCS{Bucket: "b"}, Strategy: s}
	}
	r2 := func(s mount.Strategy) *mount.Mount {
		return &mount.Mount{Type: mount.TypeR2, R2: &mount.R2{Bucket: "b", AccountID: "a"}, Strategy: s}
	}
	az := func(s mount.Strategy) *mount.Mount {
		return &mount.Mount{Type: mount.TypeAzureBlob, AzureBlob: &mount.AzureBlob{Account: "a", Container: "c"}, Strategy: s}
	}
	box := func(s mount.Strategy) *mount.Mount {
		return &mount.Mount{Type: mount.TypeBox, Box: &mount.Box{}, Strategy: s}
	}
	s3f := func(s mount.Strategy) *mount.Mount {
		return &mount.Mount{Type: mount.TypeS3Files, S3Files: &mount.S3Files{FileSystemID: "fs-1"}, Strategy: s}
	}
	badPattern := func(typ string) func(*testing.T, error) {
		return func(t *testing.T, err error) {
			wantConfigError(t, err, "invalid mount_pattern type", map[string]any{"type": typ})
		}
	}
	badDriver := func(typ, driver string) func(*testing.T, error) {
		return func(t *testing.T, err error) {
			wantConfigError(t, err, "invalid Docker volume driver", map[string]any{"type": typ, "driver": driver})
		}
	}
	ok := func(t *testing.T, err error) {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
	}
	tests := []struct {
		name  string
		m     *mount.Mount
		check func(*testing.T, error)
	}{
		{"s3 rclone", s3(inContainer("rclone")), ok},
		{"s3 mountpoint", s3(inContainer("mountpoint")), ok},
		{"s3 fuse", s3(inContainer("fuse")), badPattern(mount.TypeS3)},
		{"s3 s3files", s3(inContainer("s3files")), badPattern(mount.TypeS3)},
		{"s3 docker mountpoint", s3(docker("mountpoint")), ok},
		{"s3 docker rclone", s3(docker("rclone")), ok},
		{"s3 docker other", s3(docker("local")), badDriver(mount.TypeS3, "local")},
		{"gcs mountpoint", gcs(inContainer("mountpoint")), ok},
		{"gcs docker rclone", gcs(docker("rclone")), ok},
		{"r2 rclone", r2(inContainer("rclone")), ok},
		{"r2 mountpoint", r2(inContainer("mountpoint")), badPattern(mount.TypeR2)},
		{"r2 docker mountpoint", r2(docker("mountpoint")), badDriver(mount.TypeR2, "mountpoint")},
		{"azure fuse", az(inContainer("fuse")), ok},
		{"azure rclone", az(inContainer("rclone")), ok},
		{"azure mountpoint", az(inContainer("mountpoint")), badPattern(mount.TypeAzureBlob)},
		{"azure docker mountpoint", az(docker("mountpoint")), badDriver(mount.TypeAzureBlob, "mountpoint")},
		{"box rclone", box(inContainer("rclone")), ok},
		{"box fuse", box(inContainer("fuse")), badPattern(mount.TypeBox)},
		{"s3files s3files", s3f(inContainer("s3files")), ok},
		{"s3files rclone", s3f(inContainer("rclone")), badPattern(mount.TypeS3Files)},
		{"s3files docker rclone", s3f(docker("rclone")), badDriver(mount.TypeS3Files, "rclone")},
		{"missing pattern", s3(mount.Strategy{Type: mount.StrategyInContainer}), badPattern(mount.TypeS3)},
		{"unknown strategy", s3(mount.Strategy{Type: "modal_cloud_bucket"}), func(t *testing.T, err error) {
			wantConfigError(t, err, "invalid mount_strategy type", map[string]any{"type": mount.TypeS3, "strategy": "modal_cloud_bucket"})
		}},
		{"unknown type", &mount.Mount{Type: "nfs_mount", Strategy: inContainer("rclone")}, func(t *testing.T, err error) {
			wantConfigError(t, err, "unknown mount type", map[string]any{"type": "nfs_mount"})
		}},
		{"fields missing", &mount.Mount{Type: mount.TypeS3, Strategy: inContainer("rclone")}, func(t *testing.T, err error) {
			wantConfigError(t, err, "mount type fields are missing", map[string]any{"type": mount.TypeS3})
		}},
		{"empty bucket", &mount.Mount{Type: mount.TypeS3, S3: &mount.S3{}, Strategy: inContainer("rclone")}, func(t *testing.T, err error) {
			wantConfigError(t, err, "bucket is required", map[string]any{"type": mount.TypeS3, "field": "bucket"})
		}},
		{"empty account_id", &mount.Mount{Type: mount.TypeR2, R2: &mount.R2{Bucket: "b"}, Strategy: inContainer("rclone")}, func(t *testing.T, err error) {
			wantConfigError(t, err, "account_id is required", nil)
		}},
		{"empty container", &mount.Mount{Type: mount.TypeAzureBlob, AzureBlob: &mount.AzureBlob{Account: "a"}, Strategy: inContainer("fuse")}, func(t *testing.T, err error) {
			wantConfigError(t, err, "container is required", nil)
		}},
		{"box sub type enterprise", &mount.Mount{Type: mount.TypeBox, Box: &mount.Box{BoxSubType: "enterprise"}, Strategy: inContainer("rclone")}, ok},
		{"box sub type bad", &mount.Mount{Type: mount.TypeBox, Box: &mount.Box{BoxSubType: "team"}, Strategy: inContainer("rclone")}, func(t *testing.T, err error) {
			wantConfigError(t, err, "invalid box_sub_type", map[string]any{"type": mount.TypeBox, "box_sub_type": "team"})
		}},
		{"rclone nfs", s3(mount.Strategy{Type: mount.StrategyInContainer, Pattern: &mount.Pattern{Type: "rclone", Rclone: &mount.RclonePattern{Mode: "nfs"}}}), ok},
		{"rclone bad mode", s3(mount.Strategy{Type: mount.StrategyInContainer, Pattern: &mount.Pattern{Type: "rclone", Rclone: &mount.RclonePattern{Mode: "smb"}}}), func(t *testing.T, err error) {
			wantConfigError(t, err, "invalid rclone mode", map[string]any{"mode": "smb"})
		}},
		{"r2 half key pair", &mount.Mount{Type: mount.TypeR2, R2: &mount.R2{Bucket: "b", AccountID: "a", AccessKeyID: sp("k")}, Strategy: inContainer("rclone")}, func(t *testing.T, err error) {
			wantConfigError(t, err, "r2 credentials must include both access_key_id and secret_access_key", map[string]any{"type": mount.TypeR2})
		}},
		{"r2 full key pair", &mount.Mount{Type: mount.TypeR2, R2: &mount.R2{Bucket: "b", AccountID: "a", AccessKeyID: sp("k"), SecretAccessKey: sp("s")}, Strategy: docker("rclone")}, ok},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.check(t, tt.m.Validate()) })
	}
}

func TestFusePatternValidate(t *testing.T) {
	const msg = "blobfuse cache_path must be relative to the workspace root"
	tests := []struct {
		cacheType string
		cachePath *string
		wantMsg   string
		wantPath  string
	}{
		{"block_cache", nil, "", ""},
		{"", sp("cache/blob"), "", ""},
		{"file_cache", sp("./cache"), "", ""},
		{"block_cache", sp("/tmp/cache"), msg, "/tmp/cache"},
		{"block_cache", sp("../cache"), msg, "../cache"},
		{"block_cache", sp("a/../../cache"), msg, "a/../../cache"},
		{"block_cache", sp(`C:\cache\x`), msg, "C:/cache/x"},
		{"ram_cache", nil, "invalid fuse cache_type", ""},
	}
	for _, tt := range tests {
		p := mount.DefaultFusePattern()
		p.CacheType, p.CachePath = tt.cacheType, tt.cachePath
		err := p.Validate()
		if tt.wantMsg == "" {
			if err != nil {
				t.Errorf("%v: unexpected error %v", deref(tt.cachePath), err)
			}
			continue
		}
		var ctx map[string]any
		if tt.wantPath != "" {
			ctx = map[string]any{"cache_path": tt.wantPath}
		}
		wantConfigError(t, err, tt.wantMsg, ctx)
	}
}

func deref(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

func TestPatternsAndDrivers(t *testing.T) {
	if got := mount.Patterns(mount.TypeAzureBlob); !reflect.DeepEqual(got, []string{"rclone", "fuse"}) {
		t.Errorf("azure patterns: %v", got)
	}
	if got := mount.Drivers(mount.TypeS3); !reflect.DeepEqual(got, []string{"mountpoint", "rclone"}) {
		t.Errorf("s3 drivers: %v", got)
	}
	if got := mount.Drivers(mount.TypeS3Files); len(got) != 0 {
		t.Errorf("s3files drivers: %v", got)
	}
	if mount.Patterns("nope") != nil {
		t.Error("unknown type has patterns")
	}
	got := mount.Patterns(mount.TypeS3)
	got[0] = "changed"
	if mount.Patterns(mount.TypeS3)[0] != "rclone" {
		t.Error("Patterns shares its slice with the matrix")
	}
}

func TestPermissions(t *testing.T) {
	p, warn := mount.Permissions(posix.Permissions{Owner: 7, Group: 5, Other: 5})
	if warn || p.String() != "drwxr-xr-x" {
		t.Errorf("default: %v %v", p, warn)
	}
	p, warn = mount.Permissions(posix.Permissions{Owner: 4})
	if !warn || p.String() != "drwxr-xr-x" {
		t.Errorf("override: %v %v", p, warn)
	}
}
