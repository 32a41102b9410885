package mount

import (
	"context"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// S3FilesRuntime is the runtime config of an S3 Files mount: the file
// system, subpath, mount helper options after merging the mount with the
// pattern's options, the extra options in order (a nil Value is a bare
// key), the mount type and read-only flag. Follows the Python SDK's
// S3FilesMountConfig.
type S3FilesRuntime struct {
	FileSystemID                                string
	Subpath, MountTargetIP, AccessPoint, Region *string
	ExtraOptions                                []Option
	MountType                                   string
	ReadOnly                                    bool
}

// S3FilesConfig builds the runtime config of an s3_files_mount with the
// pattern's options (nil means none): mount_target_ip, access_point and
// region are the mount's when set and non-empty, else the options'; extra
// options are the pattern's merged with the mount's, mount keys overriding
// in place (a Python dict merge, options | mount). Other types →
// MountConfigError "invalid mount_pattern type" {type}. Follows the Python SDK's
// S3FilesMount.build_in_container_mount_config.
func S3FilesConfig(m *Mount, o *S3FilesOptions) (S3FilesRuntime, error) {
	if m.Type != TypeS3Files || m.S3Files == nil {
		return S3FilesRuntime{}, NewConfigError("invalid mount_pattern type", map[string]any{"type": m.Type})
	}
	if o == nil {
		o = &S3FilesOptions{}
	}
	f := m.S3Files
	extra := append([]Option{}, o.ExtraOptions...)
	for _, opt := range f.ExtraOptions {
		extra = setOption(extra, opt.Key, opt.Value)
	}
	return S3FilesRuntime{FileSystemID: f.FileSystemID, Subpath: f.Subpath,
		MountTargetIP: pyOr(f.MountTargetIP, o.MountTargetIP), AccessPoint: pyOr(f.AccessPoint, o.AccessPoint),
		Region: pyOr(f.Region, o.Region), ExtraOptions: extra, MountType: m.Type, ReadOnly: m.ReadOnly}, nil
}

// setOption sets key in an ordered option list as a Python dict assignment
// does: in place when present, appended otherwise.
func setOption(opts []Option, key string, v *string) []Option {
	for i := range opts {
		if opts[i].Key == key {
			opts[i].Value = v
			return opts
		}
	}
	return append(opts, Option{Key: key, Value: v})
}

// S3FilesOptionString renders the -o argument of mount -t s3files: the
// extra options in order, then ro (read-only), mounttargetip=,
// accesspoint=, region= (when set and non-empty; a key already present is
// overwritten in place), joined by "," with a nil value as a bare key. ""
// means no -o argument.
func S3FilesOptionString(rt S3FilesRuntime) string {
	opts := append([]Option{}, rt.ExtraOptions...)
	if rt.ReadOnly {
		opts = setOption(opts, "ro", nil)
	}
	for _, kv := range []struct {
		k string
		v *string
	}{{"mounttargetip", rt.MountTargetIP}, {"accesspoint", rt.AccessPoint}, {"region", rt.Region}} {
		if truthy(kv.v) {
			opts = setOption(opts, kv.k, kv.v)
		}
	}
	parts := make([]string, len(opts))
	for i, o := range opts {
		parts[i] = o.Key
		if o.Value != nil {
			parts[i] += "=" + *o.Value
		}
	}
	return strings.Join(parts, ",")
}

// S3FilesArgv is the argument vector mount -t s3files [-o <options>]
// <device> <mount path>, the device being <file_system_id>[:<subpath>].
// Follows the Python SDK's S3FilesMountPattern.apply.
func S3FilesArgv(rt S3FilesRuntime, mountPath string) []string {
	device := rt.FileSystemID
	if truthy(rt.Subpath) {
		device += ":" + *rt.Subpath
	}
	cmd := []string{"mount", "-t", "s3files"}
	if o := S3FilesOptionString(rt); o != "" {
		cmd = append(cmd, "-o", o)
	}
	return append(cmd, device, mountPath)
}

// ApplyS3Files mounts an S3 Files file system at mountPath (absolute, or
// relative to the root): probe "command -v mount.s3files >/dev/null 2>&1"
// (NewToolMissingError "mount.s3files" {file_system_id}); mkdir -p the
// mount; run S3FilesArgv. A failed mount → NewCommandError with the
// shell-joined command {file_system_id}. Nothing is generated. Follows the
// Python SDK's S3FilesMountPattern.apply.
func ApplyS3Files(ctx context.Context, s Session, rt S3FilesRuntime, mountPath string) (Applied, error) {
	var out Applied
	r := newRunner(ctx, s, &out)
	fsCtx := map[string]any{"file_system_id": rt.FileSystemID}
	if err := r.probe("command -v mount.s3files >/dev/null 2>&1", "mount.s3files", fsCtx); err != nil {
		return out, err
	}
	mount := r.abs(mountPath)
	if err := r.mkdir(mount); err != nil {
		return out, err
	}
	cmd := S3FilesArgv(rt, mount)
	res, err := r.exec(cmd...)
	if err != nil {
		return out, err
	}
	if res.ExitCode != 0 {
		return out, commandFailed(sandbox.ShellJoin(cmd), res, fsCtx)
	}
	return out, nil
}

// UnapplyS3Files unmounts an S3 Files mount with the Python SDK's best-effort
// sh -lc "umount <mount> || true", ignoring its exit code. Follows the
// Python SDK's S3FilesMountPattern.unapply.
func UnapplyS3Files(ctx context.Context, s Session, mountPath string) error {
	r := newRunner(ctx, s, &Applied{})
	_, err := r.shell("umount " + sandbox.ShellQuote(r.abs(mountPath)) + " || true")
	return err
}
