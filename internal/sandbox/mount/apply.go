package mount

import (
	"context"
	"errors"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// Apply mounts m in the session at mountPath (the resolved mount path from
// ResolveMountPath, absolute, or relative to the root) for an in-container
// strategy, building the pattern's runtime config and running the pattern's
// commands (ApplyRclone, ApplyMountpoint, ApplyFuse, ApplyS3Files). For an
// rclone pattern with a config_file_path the file is read from the session
// first (relative paths under the root); a read failure other than
// sandbox.CodeWorkspaceReadNotFound → MountConfigError "failed to read
// rclone config file" {type, path}.
//
// m is validated first (Validate); a docker_volume mount → MountConfigError
// "docker-volume mounts are not supported by this sandbox backend" {type}:
// Docker attaches those volumes when it creates the container
// (VolumeDriverOptions, VolumeName), nothing runs in the workspace.
//
// When m carries credentials, errors raised while mounting are replaced as
// the Python SDK's lifecycle wrapper does: a MountConfigError gets "sandbox mount
// configuration is invalid", any other structured error keeps its code, op
// and retryable flag but gets "sandbox operation failed while using a
// protected mount configuration" and an empty context, any other error
// becomes a plain error with that message. The returned
// Applied lists what was created even on error. Follows the Python SDK's
// Mount.apply and InContainerMountStrategy.activate.
func Apply(ctx context.Context, s Session, m *Mount, mountPath, sessionID string) (Applied, error) {
	if err := m.Validate(); err != nil {
		return Applied{}, err
	}
	if m.Strategy.Type != StrategyInContainer {
		return Applied{}, dockerVolumeError(m)
	}
	out, err := apply(ctx, s, m, mountPath, sessionID)
	if err != nil && mountCarriesAuthority(m) {
		err = protectMountError(err)
	}
	return out, err
}

func dockerVolumeError(m *Mount) error {
	return NewConfigError("docker-volume mounts are not supported by this sandbox backend", map[string]any{"type": m.Type})
}

func apply(ctx context.Context, s Session, m *Mount, mountPath, sessionID string) (Applied, error) {
	p := m.Strategy.Pattern
	switch p.Type {
	case PatternRclone:
		var existing []byte
		path := ""
		if p.Rclone != nil && p.Rclone.ConfigFilePath != nil {
			path = posix.JoinPosix(posix.CoercePosix(s.Root()), posix.PurePosix(*p.Rclone.ConfigFilePath))
			data, err := s.ReadFile(ctx, path)
			if err != nil {
				var se *sandbox.Error
				if errors.As(err, &se) && se.Code == sandbox.CodeWorkspaceReadNotFound {
					return Applied{}, err
				}
				return Applied{}, NewConfigError("failed to read rclone config file", map[string]any{"type": m.Type, "path": path})
			}
			existing = data
		}
		rt, err := rcloneConfig(m, p.Rclone, sessionID, existing, path)
		if err != nil {
			return Applied{}, err
		}
		return ApplyRclone(ctx, s, p.Rclone, rt, mountPath, sessionID)
	case PatternMountpoint:
		rt, err := MountpointConfig(m, p.Mountpoint)
		if err != nil {
			return Applied{}, err
		}
		return ApplyMountpoint(ctx, s, rt, mountPath, sessionID)
	case PatternFuse:
		rt, err := AzureConfig(m)
		if err != nil {
			return Applied{}, err
		}
		return ApplyFuse(ctx, s, p.Fuse, rt, mountPath, sessionID)
	case PatternS3Files:
		rt, err := S3FilesConfig(m, p.S3Files)
		if err != nil {
			return Applied{}, err
		}
		return ApplyS3Files(ctx, s, rt, mountPath)
	}
	return Applied{}, NewConfigError("invalid mount_pattern type", map[string]any{"type": m.Type})
}

// Unapply unmounts m from mountPath with the pattern's Python SDK commands
// (UnapplyRclone, UnapplyFuseMount for mountpoint and fuse, UnapplyS3Files),
// whose exit codes are ignored, then removes the helper files Apply wrote
// for this mount (the GeneratedPaths Apply returns, recomputed from m, the
// root and sessionID) with one "rm -rf -- <paths…>" argument vector.
// Removing them is an addition to the Python SDK, which leaves them in the
// workspace: a declarative destroy removes what it wrote. Nothing of other
// mounts is touched, and the per-session directories stay. Paths inside
// the mount path are left alone: if the unmount silently failed they would
// name objects of the remote storage.
//
// Errors: those of Validate; the docker_volume error of Apply; an rclone
// mount needs sessionID to name its remote ("mount session is missing
// session_id"); a failed rm → NewCommandError; transport errors as they
// are. Errors are protected as in Apply when m carries credentials.
// Follows the Python SDK's Mount.unmount and the patterns' unapply.
func Unapply(ctx context.Context, s Session, m *Mount, mountPath, sessionID string) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if m.Strategy.Type != StrategyInContainer {
		return dockerVolumeError(m)
	}
	err := unapply(ctx, s, m, mountPath, sessionID)
	if err != nil && mountCarriesAuthority(m) {
		err = protectMountError(err)
	}
	return err
}

func unapply(ctx context.Context, s Session, m *Mount, mountPath, sessionID string) error {
	p := m.Strategy.Pattern
	var err error
	switch p.Type {
	case PatternRclone:
		kind, kerr := RemoteKind(m)
		if kerr != nil {
			return kerr
		}
		if _, serr := requireSession(sessionID, m.Type); serr != nil {
			return serr
		}
		err = UnapplyRclone(ctx, s, p.Rclone, RemoteName(p.Rclone, kind, sessionID), mountPath)
	case PatternMountpoint, PatternFuse:
		err = UnapplyFuseMount(ctx, s, mountPath)
	case PatternS3Files:
		err = UnapplyS3Files(ctx, s, mountPath)
	}
	if err != nil {
		return err
	}
	all, err := GeneratedPaths(m, s.Root(), mountPath, sessionID)
	if err != nil {
		return err
	}
	mount := posix.JoinPosix(posix.CoercePosix(s.Root()), posix.PurePosix(mountPath))
	var paths []string
	for _, g := range all {
		if _, inside := posix.RelativeTo(g, mount); !inside {
			paths = append(paths, g)
		}
	}
	if len(paths) == 0 {
		return nil
	}
	cmd := append([]string{"rm", "-rf", "--"}, paths...)
	res, err := s.Exec(ctx, cmd)
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return commandFailed(sandbox.ShellJoin(cmd), res, map[string]any{"type": m.Type})
	}
	return nil
}

// GeneratedPaths returns the absolute paths of the helper files and
// directories applying m at mountPath under root in that session creates,
// as Applied.GeneratedPaths lists them: the rclone config file; the
// mount-s3 env, stdout and stderr files when the mount runs with an env
// file; the blobfuse2 config file and, without a cache_path, its default
// cache directory; nothing for S3 Files. sessionID "" → "mount session is
// missing session_id" when a path needs it. The Python SDK has no such list (it
// never removes these files); the names follow its patterns' apply.
func GeneratedPaths(m *Mount, root, mountPath, sessionID string) ([]string, error) {
	p := m.Strategy.Pattern
	if m.Strategy.Type != StrategyInContainer || p == nil || p.Type == PatternS3Files {
		return nil, nil
	}
	rootPath := posix.CoercePosix(root)
	abs := func(rel string) string { return posix.JoinPosix(rootPath, posix.PurePosix(rel)) }
	mount := abs(mountPath)
	var rel []string
	switch p.Type {
	case PatternRclone:
		kind, err := RemoteKind(m)
		if err != nil {
			return nil, err
		}
		sid, err := requireSession(sessionID, m.Type)
		if err != nil {
			return nil, err
		}
		rel = []string{rcloneConfigRel(sid, RemoteName(p.Rclone, kind, sessionID))}
	case PatternMountpoint:
		rt, err := MountpointConfig(m, p.Mountpoint)
		if err != nil || len(MountpointEnv(rt)) == 0 {
			return nil, err
		}
		sid, err := requireSession(sessionID, m.Type)
		if err != nil {
			return nil, err
		}
		f := mountpointFiles(sid, rt.Bucket, mount)
		rel = f[:]
	case PatternFuse:
		rt, err := AzureConfig(m)
		if err != nil {
			return nil, err
		}
		sid, err := requireSession(sessionID, m.Type)
		if err != nil {
			return nil, err
		}
		fp := p.Fuse
		if fp == nil {
			d := DefaultFusePattern()
			fp = &d
		}
		cacheRel, _, configRel := blobfusePaths(fp, rt, sid)
		rel = []string{configRel}
		if fp.CachePath == nil {
			rel = []string{cacheRel, configRel}
		}
	}
	out := make([]string, len(rel))
	for i, r := range rel {
		out[i] = abs(r)
	}
	return out, nil
}

// mountCarriesAuthority reports whether a mount holds credential material whose
// presence makes the Python SDK sanitise errors (design/sdk-model.md §5.7, §5.8): a credential
// field of its provider, an endpoint URL with inline authority, an rclone
// config_file_path or --config argument, S3 Files extra options, or Docker
// driver options. The general credential boundary helpers may take this
// over.
func mountCarriesAuthority(m *Mount) bool {
	var fields []*string
	var endpoint *string
	switch {
	case m.Type == TypeS3 && m.S3 != nil:
		fields, endpoint = []*string{m.S3.AccessKeyID, m.S3.SecretAccessKey, m.S3.SessionToken}, m.S3.Endpoint
	case m.Type == TypeGCS && m.GCS != nil:
		fields = []*string{m.GCS.AccessID, m.GCS.SecretAccessKey, m.GCS.ServiceAccountFile,
			m.GCS.ServiceAccountCredentials, m.GCS.AccessToken}
		endpoint = m.GCS.EndpointURL
	case m.Type == TypeR2 && m.R2 != nil:
		fields, endpoint = []*string{m.R2.AccessKeyID, m.R2.SecretAccessKey}, m.R2.CustomDomain
	case m.Type == TypeAzureBlob && m.AzureBlob != nil:
		fields = []*string{m.AzureBlob.IdentityClientID, m.AzureBlob.AccountKey}
		endpoint = m.AzureBlob.Endpoint
	case m.Type == TypeBox && m.Box != nil:
		fields = []*string{m.Box.ClientSecret, m.Box.AccessToken, m.Box.Token, m.Box.BoxConfigFile,
			m.Box.ConfigCredentials}
	case m.Type == TypeS3Files && m.S3Files != nil:
		if len(m.S3Files.ExtraOptions) > 0 {
			return true
		}
	}
	if inlineAuthorityURL(endpoint) {
		return true
	}
	for _, f := range fields {
		if f != nil {
			return true
		}
	}
	if len(m.Strategy.DriverOptions) > 0 {
		return true
	}
	if p := m.Strategy.Pattern; p != nil {
		if p.Rclone != nil && p.Rclone.ConfigFilePath != nil {
			return true
		}
		if p.Rclone != nil {
			for _, a := range p.Rclone.ExtraArgs {
				if opt, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "="); strings.EqualFold(opt, "config") {
					return true
				}
			}
		}
		if p.Mountpoint != nil && inlineAuthorityURL(p.Mountpoint.EndpointURL) {
			return true
		}
		if p.S3Files != nil && len(p.S3Files.ExtraOptions) > 0 {
			return true
		}
	}
	return false
}
