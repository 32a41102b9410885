package conformance

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// Conformance handlers for the Python SDK's mount vectors: mount paths and
// targets, rclone/mountpoint/s3files runtime configs, the commands the
// patterns run, and Docker volume driver options and names.

const mvDefaultSession = "12345678-1234-5678-1234-567812345678"

func mvMountPath(_ string, raw json.RawMessage, _ any) (any, error) {
	var in struct {
		Fn        string          `json:"fn"`
		Root      string          `json:"root"`
		MountPath *string         `json:"mount_path"`
		Dest      string          `json:"dest"`
		Check     string          `json:"check"`
		Manifest  json.RawMessage `json:"manifest"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	switch {
	case in.Fn == "Mount._resolve_mount_path_for_root":
		return mount.ResolveMountPath(in.Root, in.MountPath, in.Dest)
	case in.Check == "permissions repr":
		_, _, args, err := mvNotation(in.Fn)
		if err != nil {
			return nil, err
		}
		req, err := mvPermissions(args["permissions"])
		if err != nil {
			return nil, err
		}
		p, _ := mount.Permissions(req)
		return p.String(), nil
	case len(in.Manifest) > 0:
		return mvMountTargets(in.Manifest)
	}
	return nil, unsupported("mount_path input %s", raw)
}

// mvPermissions reads "Permissions(owner=4, ...)" with the bare model's
// defaults (7, 0, 0).
func mvPermissions(expr string) (posix.Permissions, error) {
	inner, ok := strings.CutPrefix(expr, "Permissions(")
	if !ok || !strings.HasSuffix(inner, ")") {
		return posix.Permissions{}, unsupported("permissions %q", expr)
	}
	p := posix.Permissions{Owner: 7}
	for _, kv := range strings.Split(strings.TrimSuffix(inner, ")"), ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		n, err := strconv.Atoi(v)
		if err != nil {
			return p, unsupported("permissions %q", expr)
		}
		switch k {
		case "owner":
			p.Owner = n
		case "group":
			p.Group = n
		case "other":
			p.Other = n
		}
	}
	return p, nil
}

// mvMountTargets walks a manifest whose mounts use the short notation and
// returns the Python SDK's mount_targets as [label, path] pairs.
func mvMountTargets(raw json.RawMessage) (any, error) {
	var man struct {
		Root    string          `json:"root"`
		Entries json.RawMessage `json:"entries"`
	}
	if err := json.Unmarshal(raw, &man); err != nil {
		return nil, err
	}
	var targets []mount.Target
	labels := map[*mount.Mount]string{}
	var walk func(prefix string, entries json.RawMessage) error
	walk = func(prefix string, entries json.RawMessage) error {
		kvs, err := mvObject(entries)
		if err != nil {
			return err
		}
		for _, kv := range kvs {
			key := posix.JoinEntryPath(prefix, kv.Key)
			var notation string
			if json.Unmarshal(kv.Val, &notation) != nil {
				var dir struct {
					Children json.RawMessage `json:"children"`
				}
				if err := json.Unmarshal(kv.Val, &dir); err != nil {
					return err
				}
				if err := walk(key, dir.Children); err != nil {
					return err
				}
				continue
			}
			mraw, class, _, err := mvNotation(notation)
			if err != nil {
				return err
			}
			m, err := mvDecodeMount(mraw, nil)
			if err != nil {
				return err
			}
			dest, err := posix.ResolveWorkspacePath(man.Root, key, false)
			if err != nil {
				return err
			}
			p, err := mount.ResolveMountPath(man.Root, m.MountPath, dest)
			if err != nil {
				return err
			}
			if p, err = mount.NormalizeMountTarget(man.Root, p); err != nil {
				return err
			}
			labels[m] = class + ":" + mvBucket(m)
			targets = append(targets, mount.Target{Key: key, Mount: m, Path: p})
		}
		return nil
	}
	if err := walk("", man.Entries); err != nil {
		return nil, err
	}
	mount.SortTargets(targets)
	out := make([][]string, len(targets))
	for i, t := range targets {
		out[i] = []string{labels[t.Mount], t.Path}
	}
	return out, nil
}

func mvBucket(m *mount.Mount) string {
	switch {
	case m.S3 != nil:
		return m.S3.Bucket
	case m.GCS != nil:
		return m.GCS.Bucket
	case m.R2 != nil:
		return m.R2.Bucket
	}
	return ""
}

func mvRcloneConfig(_ string, raw json.RawMessage, _ any) (any, error) {
	var in struct {
		Mount          json.RawMessage `json:"mount"`
		Pattern        json.RawMessage `json:"pattern"`
		SessionID      *string         `json:"session_id"`
		ConfigFileText *string         `json:"config_file_text"`
		Mounts         []string        `json:"mounts"`
		RemoteKind     string          `json:"remote_kind"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	sid := mvOr(in.SessionID, mvDefaultSession)
	if len(in.Mounts) > 0 {
		names := make([]string, len(in.Mounts))
		for i, n := range in.Mounts {
			mraw, _, _, err := mvNotation(n)
			if err != nil {
				return nil, err
			}
			m, err := mvDecodeMount(mraw, nil)
			if err != nil {
				return nil, err
			}
			rt, err := mount.RcloneConfig(m, m.Strategy.Pattern.Rclone, sid, nil)
			if err != nil {
				return nil, err
			}
			names[i] = rt.RemoteName
		}
		return names, nil
	}
	p, err := mvDecodePattern(in.Pattern)
	if err != nil {
		return nil, err
	}
	if in.RemoteKind != "" {
		return mount.RemoteName(p.Rclone, in.RemoteKind, sid), nil
	}
	m, err := mvDecodeMount(in.Mount, p)
	if err != nil {
		return nil, err
	}
	switch p.Type {
	case mount.PatternRclone:
		var existing []byte
		if in.ConfigFileText != nil {
			existing = []byte(*in.ConfigFileText)
		}
		rt, err := mount.RcloneConfig(m, p.Rclone, sid, existing)
		if err != nil {
			return nil, err
		}
		return map[string]any{"remote_name": rt.RemoteName, "remote_path": rt.RemotePath, "remote_kind": rt.RemoteKind,
			"mount_type": rt.MountType, "config_text": rt.ConfigText, "read_only": rt.ReadOnly}, nil
	case mount.PatternMountpoint:
		rt, err := mount.MountpointConfig(m, p.Mountpoint)
		if err != nil {
			return nil, err
		}
		return map[string]any{"bucket": rt.Bucket, "access_key_id": rt.AccessKeyID,
			"secret_access_key": rt.SecretAccessKey, "session_token": rt.SessionToken, "prefix": rt.Prefix,
			"region": rt.Region, "endpoint_url": rt.EndpointURL, "mount_type": rt.MountType, "read_only": rt.ReadOnly}, nil
	case mount.PatternS3Files:
		rt, err := mount.S3FilesConfig(m, p.S3Files)
		if err != nil {
			return nil, err
		}
		extra := map[string]*string{}
		for _, o := range rt.ExtraOptions {
			extra[o.Key] = o.Value
		}
		return map[string]any{"file_system_id": rt.FileSystemID, "subpath": rt.Subpath,
			"mount_target_ip": rt.MountTargetIP, "access_point": rt.AccessPoint, "region": rt.Region,
			"extra_options": extra, "mount_type": rt.MountType, "read_only": rt.ReadOnly}, nil
	}
	return nil, unsupported("pattern %q", p.Type)
}

func mvMountCommands(_ string, raw json.RawMessage, _ any) (any, error) {
	var in struct {
		Pattern    json.RawMessage `json:"pattern"`
		MountPath  *string         `json:"mount_path"`
		Config     json.RawMessage `json:"config"`
		SessionID  *string         `json:"session_id"`
		RemoteName string          `json:"remote_name"`
		MountExit  int             `json:"mount_exit"`
		Stderr     string          `json:"stderr"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	p, err := mvDecodePattern(in.Pattern)
	if err != nil {
		return nil, err
	}
	if p.Fuse != nil {
		if err := p.Fuse.Validate(); err != nil {
			return nil, err
		}
	}
	if in.MountPath == nil {
		return nil, unsupported("mount_commands input without mount_path: %s", raw)
	}
	ctx := context.Background()
	s := &mvSession{root: "/workspace", mountExit: in.MountExit, stderr: in.Stderr}
	sid := mvOr(in.SessionID, mvDefaultSession)
	mp := *in.MountPath
	if len(in.Config) == 0 {
		switch p.Type {
		case mount.PatternRclone:
			err = mount.UnapplyRclone(ctx, s, p.Rclone, in.RemoteName, mp)
		case mount.PatternS3Files:
			err = mount.UnapplyS3Files(ctx, s, mp)
		default:
			err = mount.UnapplyFuseMount(ctx, s, mp)
		}
		return s.execs, err
	}
	var cfg struct {
		mvMountJSON
		RemoteName string  `json:"remote_name"`
		RemotePath string  `json:"remote_path"`
		RemoteKind string  `json:"remote_kind"`
		MountType  *string `json:"mount_type"`
		ConfigText string  `json:"config_text"`
	}
	if err := json.Unmarshal(in.Config, &cfg); err != nil {
		return nil, err
	}
	j := cfg.mvMountJSON
	readOnly := j.ReadOnly == nil || *j.ReadOnly
	var applied mount.Applied
	switch p.Type {
	case mount.PatternRclone:
		rt := mount.RcloneRuntime{RemoteName: cfg.RemoteName, RemotePath: cfg.RemotePath, RemoteKind: cfg.RemoteKind,
			MountType: mvOr(cfg.MountType, ""), ConfigText: cfg.ConfigText, ReadOnly: readOnly}
		applied, err = mount.ApplyRclone(ctx, s, p.Rclone, rt, mp, sid)
	case mount.PatternFuse:
		rt := mount.AzureRuntime{Account: j.Account, Container: j.Container, Endpoint: j.Endpoint,
			IdentityClientID: j.IdentityClientID, AccountKey: j.AccountKey,
			MountType: mvOr(cfg.MountType, mount.TypeAzureBlob), ReadOnly: readOnly}
		applied, err = mount.ApplyFuse(ctx, s, p.Fuse, rt, mp, sid)
	case mount.PatternMountpoint:
		rt := mount.MountpointRuntime{Bucket: j.Bucket, AccessKeyID: j.AccessKeyID, SecretAccessKey: j.SecretAccessKey,
			SessionToken: j.SessionToken, Prefix: j.Prefix, Region: j.Region, EndpointURL: j.EndpointURL,
			MountType: mvOr(cfg.MountType, mount.TypeS3), ReadOnly: readOnly}
		applied, err = mount.ApplyMountpoint(ctx, s, rt, mp, sid)
	case mount.PatternS3Files:
		extra, derr := mvOptions(j.ExtraOptions)
		if derr != nil {
			return nil, derr
		}
		rt := mount.S3FilesRuntime{FileSystemID: j.FileSystemID, Subpath: j.Subpath, MountTargetIP: j.MountTargetIP,
			AccessPoint: j.AccessPoint, Region: j.Region, ExtraOptions: extra,
			MountType: mvOr(cfg.MountType, mount.TypeS3Files), ReadOnly: readOnly}
		applied, err = mount.ApplyS3Files(ctx, s, rt, mp)
	}
	out := map[string]any{"exec_calls": mvNonNil(s.execs), "write_calls": mvNonNil(s.writes),
		"persist_skip_paths": append([]string{}, applied.PersistSkipPaths...)}
	if err != nil {
		out["raised"] = mvRaised(err)
	}
	return out, nil
}

func mvNonNil(v [][]string) [][]string {
	if v == nil {
		return [][]string{}
	}
	return v
}

func mvDockerVolume(_ string, raw json.RawMessage, _ any) (any, error) {
	var in struct {
		Fn        string          `json:"fn"`
		SessionID *string         `json:"session_id"`
		MountPath string          `json:"mount_path"`
		Mount     json.RawMessage `json:"mount"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	if in.Fn == "_docker_volume_name" {
		return mount.VolumeName(mvOr(in.SessionID, ""), in.MountPath), nil
	}
	m, err := mvDecodeMount(in.Mount, nil)
	if err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	driver, options, readOnly, err := mount.VolumeDriverOptions(m)
	if err != nil {
		return nil, err
	}
	return map[string]any{"driver": driver, "options": options, "read_only": readOnly}, nil
}
