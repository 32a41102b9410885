package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

// Decoding of the mount vectors' inputs: the Python SDK's JSON forms of mounts,
// strategies, patterns and runtime configs, and the short Python-like
// notations some vectors use ("GCSMount(bucket=parent, mount_path=repo)").

// mvKV is one member of a JSON object, in document order.
type mvKV struct {
	Key string
	Val json.RawMessage
}

// mvObject decodes a JSON object keeping its member order.
func mvObject(raw json.RawMessage) ([]mvKV, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object: %s", raw)
	}
	var out []mvKV
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, mvKV{Key: t.(string), Val: v})
	}
	return out, nil
}

// mvOptions decodes an ordered string-or-null map.
func mvOptions(raw json.RawMessage) ([]mount.Option, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	kvs, err := mvObject(raw)
	if err != nil {
		return nil, err
	}
	out := make([]mount.Option, 0, len(kvs))
	for _, kv := range kvs {
		var v *string
		if err := json.Unmarshal(kv.Val, &v); err != nil {
			return nil, err
		}
		out = append(out, mount.Option{Key: kv.Key, Value: v})
	}
	return out, nil
}

// mvMountJSON holds every provider field of a mount's JSON form.
type mvMountJSON struct {
	Type          string          `json:"type"`
	MountPath     *string         `json:"mount_path"`
	ReadOnly      *bool           `json:"read_only"`
	MountStrategy json.RawMessage `json:"mount_strategy"`

	Bucket, Account, Container                     string
	AccessKeyID                                    *string `json:"access_key_id"`
	SecretAccessKey                                *string `json:"secret_access_key"`
	SessionToken                                   *string `json:"session_token"`
	Prefix, Region, Endpoint, Path, Token, Subpath *string
	EndpointURL                                    *string         `json:"endpoint_url"`
	S3Provider                                     *string         `json:"s3_provider"`
	AccessID                                       *string         `json:"access_id"`
	ServiceAccountFile                             *string         `json:"service_account_file"`
	ServiceAccountCredentials                      *string         `json:"service_account_credentials"`
	AccessToken                                    *string         `json:"access_token"`
	CustomDomain                                   *string         `json:"custom_domain"`
	IdentityClientID                               *string         `json:"identity_client_id"`
	AccountKey                                     *string         `json:"account_key"`
	ClientID                                       *string         `json:"client_id"`
	ClientSecret                                   *string         `json:"client_secret"`
	BoxConfigFile                                  *string         `json:"box_config_file"`
	ConfigCredentials                              *string         `json:"config_credentials"`
	BoxSubType                                     *string         `json:"box_sub_type"`
	RootFolderID                                   *string         `json:"root_folder_id"`
	Impersonate                                    *string         `json:"impersonate"`
	OwnedBy                                        *string         `json:"owned_by"`
	MountTargetIP                                  *string         `json:"mount_target_ip"`
	AccessPoint                                    *string         `json:"access_point"`
	ExtraOptions                                   json.RawMessage `json:"extra_options"`
	AccountID                                      string          `json:"account_id"`
	FileSystemID                                   string          `json:"file_system_id"`
}

func mvOr(p *string, def string) string {
	if p == nil {
		return def
	}
	return *p
}

// mvDecodeMount decodes a mount's JSON form; pattern, when not nil, is the
// in-container pattern used when the JSON has no mount_strategy.
func mvDecodeMount(raw json.RawMessage, pattern *mount.Pattern) (*mount.Mount, error) {
	var j mvMountJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, err
	}
	m := &mount.Mount{Type: j.Type, MountPath: j.MountPath, ReadOnly: j.ReadOnly == nil || *j.ReadOnly}
	switch j.Type {
	case mount.TypeS3:
		m.S3 = &mount.S3{Bucket: j.Bucket, AccessKeyID: j.AccessKeyID, SecretAccessKey: j.SecretAccessKey,
			SessionToken: j.SessionToken, Prefix: j.Prefix, Region: j.Region, Endpoint: j.EndpointURL,
			S3Provider: mvOr(j.S3Provider, "AWS")}
	case mount.TypeGCS:
		m.GCS = &mount.GCS{Bucket: j.Bucket, AccessID: j.AccessID, SecretAccessKey: j.SecretAccessKey, Prefix: j.Prefix,
			Region: j.Region, EndpointURL: j.EndpointURL, ServiceAccountFile: j.ServiceAccountFile,
			ServiceAccountCredentials: j.ServiceAccountCredentials, AccessToken: j.AccessToken}
	case mount.TypeR2:
		m.R2 = &mount.R2{Bucket: j.Bucket, AccountID: j.AccountID, AccessKeyID: j.AccessKeyID,
			SecretAccessKey: j.SecretAccessKey, CustomDomain: j.CustomDomain}
	case mount.TypeAzureBlob:
		m.AzureBlob = &mount.AzureBlob{Account: j.Account, Container: j.Container, Endpoint: j.Endpoint,
			IdentityClientID: j.IdentityClientID, AccountKey: j.AccountKey}
	case mount.TypeBox:
		m.Box = &mount.Box{Path: j.Path, ClientID: j.ClientID, ClientSecret: j.ClientSecret, AccessToken: j.AccessToken,
			Token: j.Token, BoxConfigFile: j.BoxConfigFile, ConfigCredentials: j.ConfigCredentials,
			BoxSubType: mvOr(j.BoxSubType, "user"), RootFolderID: j.RootFolderID, Impersonate: j.Impersonate,
			OwnedBy: j.OwnedBy}
	case mount.TypeS3Files:
		extra, err := mvOptions(j.ExtraOptions)
		if err != nil {
			return nil, err
		}
		m.S3Files = &mount.S3Files{FileSystemID: j.FileSystemID, Subpath: j.Subpath, MountTargetIP: j.MountTargetIP,
			AccessPoint: j.AccessPoint, Region: j.Region, ExtraOptions: extra}
	default:
		return nil, unsupported("mount type %q", j.Type)
	}
	if len(j.MountStrategy) > 0 {
		s, err := mvDecodeStrategy(j.MountStrategy)
		if err != nil {
			return nil, err
		}
		m.Strategy = s
	} else if pattern != nil {
		m.Strategy = mount.Strategy{Type: mount.StrategyInContainer, Pattern: pattern}
	}
	return m, nil
}

func mvDecodeStrategy(raw json.RawMessage) (mount.Strategy, error) {
	var j struct {
		Type          string            `json:"type"`
		Pattern       json.RawMessage   `json:"pattern"`
		Driver        string            `json:"driver"`
		DriverOptions map[string]string `json:"driver_options"`
	}
	if err := json.Unmarshal(raw, &j); err != nil {
		return mount.Strategy{}, err
	}
	s := mount.Strategy{Type: j.Type, Driver: j.Driver, DriverOptions: j.DriverOptions}
	if len(j.Pattern) > 0 {
		p, err := mvDecodePattern(j.Pattern)
		if err != nil {
			return s, err
		}
		s.Pattern = p
	}
	return s, nil
}

// mvDecodePattern decodes a pattern's JSON form with the Python SDK's defaults.
func mvDecodePattern(raw json.RawMessage) (*mount.Pattern, error) {
	var head struct {
		Type    string          `json:"type"`
		Options json.RawMessage `json:"options"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, err
	}
	p := &mount.Pattern{Type: head.Type}
	switch head.Type {
	case mount.PatternRclone:
		var j struct {
			Mode            string   `json:"mode"`
			RemoteName      *string  `json:"remote_name"`
			ExtraArgs       []string `json:"extra_args"`
			NFSAddr         *string  `json:"nfs_addr"`
			NFSMountOptions []string `json:"nfs_mount_options"`
			ConfigFilePath  *string  `json:"config_file_path"`
		}
		if err := json.Unmarshal(raw, &j); err != nil {
			return nil, err
		}
		p.Rclone = &mount.RclonePattern{Mode: mvOr(&j.Mode, "fuse"), RemoteName: j.RemoteName, ExtraArgs: j.ExtraArgs,
			NFSAddr: j.NFSAddr, NFSMountOptions: j.NFSMountOptions, ConfigFilePath: j.ConfigFilePath}
	case mount.PatternFuse:
		f := mount.DefaultFusePattern()
		if err := mvDecodeFuse(raw, &f); err != nil {
			return nil, err
		}
		p.Fuse = &f
	case mount.PatternMountpoint:
		p.Mountpoint = &mount.MountpointOptions{}
		if len(head.Options) > 0 {
			var o struct {
				Prefix, Region *string
				EndpointURL    *string `json:"endpoint_url"`
			}
			if err := json.Unmarshal(head.Options, &o); err != nil {
				return nil, err
			}
			*p.Mountpoint = mount.MountpointOptions{Prefix: o.Prefix, Region: o.Region, EndpointURL: o.EndpointURL}
		}
	case mount.PatternS3Files:
		p.S3Files = &mount.S3FilesOptions{}
		if len(head.Options) > 0 {
			var o struct {
				MountTargetIP *string         `json:"mount_target_ip"`
				AccessPoint   *string         `json:"access_point"`
				Region        *string         `json:"region"`
				ExtraOptions  json.RawMessage `json:"extra_options"`
			}
			if err := json.Unmarshal(head.Options, &o); err != nil {
				return nil, err
			}
			extra, err := mvOptions(o.ExtraOptions)
			if err != nil {
				return nil, err
			}
			*p.S3Files = mount.S3FilesOptions{MountTargetIP: o.MountTargetIP, AccessPoint: o.AccessPoint,
				Region: o.Region, ExtraOptions: extra}
		}
	default:
		return nil, unsupported("pattern type %q", head.Type)
	}
	return p, nil
}

// mvDecodeFuse overlays the fuse pattern fields present in raw on f.
func mvDecodeFuse(raw json.RawMessage, f *mount.FusePattern) error {
	var j struct {
		AllowOther                   *bool   `json:"allow_other"`
		LogType                      *string `json:"log_type"`
		LogLevel                     *string `json:"log_level"`
		CacheType                    *string `json:"cache_type"`
		CachePath                    *string `json:"cache_path"`
		CacheSizeMB                  *int64  `json:"cache_size_mb"`
		BlockCacheBlockSizeMB        *int64  `json:"block_cache_block_size_mb"`
		BlockCacheDiskTimeoutSec     *int64  `json:"block_cache_disk_timeout_sec"`
		FileCacheTimeoutSec          *int64  `json:"file_cache_timeout_sec"`
		FileCacheMaxSizeMB           *int64  `json:"file_cache_max_size_mb"`
		AttrCacheTimeoutSec          *int64  `json:"attr_cache_timeout_sec"`
		EntryCacheTimeoutSec         *int64  `json:"entry_cache_timeout_sec"`
		NegativeEntryCacheTimeoutSec *int64  `json:"negative_entry_cache_timeout_sec"`
	}
	if err := json.Unmarshal(raw, &j); err != nil {
		return err
	}
	if j.AllowOther != nil {
		f.AllowOther = *j.AllowOther
	}
	f.LogType, f.LogLevel, f.CacheType = mvOr(j.LogType, f.LogType), mvOr(j.LogLevel, f.LogLevel), mvOr(j.CacheType, f.CacheType)
	for _, kv := range []struct {
		dst *int64
		src *int64
	}{{&f.BlockCacheBlockSizeMB, j.BlockCacheBlockSizeMB}, {&f.BlockCacheDiskTimeoutSec, j.BlockCacheDiskTimeoutSec},
		{&f.FileCacheTimeoutSec, j.FileCacheTimeoutSec}} {
		if kv.src != nil {
			*kv.dst = *kv.src
		}
	}
	f.CachePath, f.CacheSizeMB, f.FileCacheMaxSizeMB = j.CachePath, j.CacheSizeMB, j.FileCacheMaxSizeMB
	f.AttrCacheTimeoutSec, f.EntryCacheTimeoutSec = j.AttrCacheTimeoutSec, j.EntryCacheTimeoutSec
	f.NegativeEntryCacheTimeoutSec = j.NegativeEntryCacheTimeoutSec
	return nil
}

var (
	mvNotationRe = regexp.MustCompile(`^(\w+)(?:\((.*)\))?(?:\s+(\w+))?$`)
	mvClassTypes = map[string]string{"S3Mount": mount.TypeS3, "GCSMount": mount.TypeGCS, "R2Mount": mount.TypeR2,
		"AzureBlobMount": mount.TypeAzureBlob, "BoxMount": mount.TypeBox, "S3FilesMount": mount.TypeS3Files}
)

// mvNotation reads the vectors' short notation "Class(args) pattern": args
// are "key=value" or a bare field name (set to "<name>-value"); the bucket
// defaults to "bucket". It returns the mount JSON, the class and the
// top-level args.
func mvNotation(s string) (json.RawMessage, string, map[string]string, error) {
	m := mvNotationRe.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil || mvClassTypes[m[1]] == "" {
		return nil, "", nil, unsupported("notation %q", s)
	}
	args := map[string]string{}
	depth, start := 0, 0
	parts := []string{}
	for i, c := range m[2] {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				parts, start = append(parts, m[2][start:i]), i+1
			}
		}
	}
	parts = append(parts, m[2][start:])
	obj := map[string]any{"type": mvClassTypes[m[1]], "bucket": "bucket"}
	for _, a := range parts {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			v = k + "-value"
		}
		args[k] = v
		if k != "permissions" {
			obj[k] = v
		}
	}
	if m[3] != "" {
		obj["mount_strategy"] = map[string]any{"type": "in_container", "pattern": map[string]any{"type": m[3]}}
	}
	raw, err := json.Marshal(obj)
	return raw, m[1], args, err
}

// mvSession is a recording Session: it returns exit code 0 for every
// command except the mount command itself when the vector gives mount_exit.
type mvSession struct {
	root      string
	execs     [][]string
	writes    [][]string
	mountExit int
	stderr    string
}

func (s *mvSession) Root() string { return s.root }

func (s *mvSession) Exec(_ context.Context, argv []string) (mount.ExecResult, error) {
	s.execs = append(s.execs, append([]string{}, argv...))
	text := strings.Join(argv, " ")
	isMount := !strings.Contains(text, "command -v") && (argv[0] == "rclone" || argv[0] == "blobfuse2" ||
		argv[0] == "mount" || strings.Contains(text, "mount-s3 ") || strings.Contains(text, "mount -v -t nfs"))
	if isMount && s.mountExit != 0 {
		return mount.ExecResult{ExitCode: s.mountExit, Stderr: []byte(s.stderr)}, nil
	}
	return mount.ExecResult{}, nil
}

func (s *mvSession) WriteFile(_ context.Context, rel string, content []byte) error {
	s.writes = append(s.writes, []string{rel, string(content)})
	return nil
}

func (s *mvSession) ReadFile(_ context.Context, path string) ([]byte, error) {
	return nil, errors.New("no such file: " + path)
}

var mvErrorClasses = map[string]string{
	sandbox.CodeMountConfigInvalid:    "MountConfigError",
	sandbox.CodeMountFailed:           "MountCommandError",
	sandbox.CodeMountMissingTool:      "MountToolMissingError",
	sandbox.CodeExecNonZero:           "ExecNonZeroError",
	sandbox.CodeInvalidManifestPath:   "InvalidManifestPathError",
	sandbox.CodeWorkspaceReadNotFound: "WorkspaceReadNotFoundError",
}

// mvRaised renders an error the way the vectors record a raised exception:
// class, error_code, message and, when not empty, context.
func mvRaised(err error) map[string]any {
	var se *sandbox.Error
	if !errors.As(err, &se) {
		return map[string]any{"error": "RuntimeError", "message": err.Error()}
	}
	out := map[string]any{"error": mvErrorClasses[se.Code], "error_code": se.Code, "message": se.Message}
	if len(se.Context) > 0 {
		out["context"] = se.Context
	}
	return out
}
