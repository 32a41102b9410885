package mount

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrUnknownType is wrapped by the decoders for a mount or pattern type
// they do not know.
var ErrUnknownType = errors.New("unknown type")

// DecodeOptionsJSON decodes an ordered map of strings or nulls (S3 Files
// extra_options), keeping the member order; null or empty input is nil.
func DecodeOptionsJSON(raw []byte) ([]Option, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("options are not a JSON object: %s", raw)
	}
	var out []Option
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		var v *string
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("option %q: %w", key, err)
		}
		out = append(out, Option{Key: key, Value: v})
	}
	return out, nil
}

// EntryJSON holds every field of a mount entry's JSON form (design/sdk-model.md §5.1, §5.4).
type EntryJSON struct {
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

func orDefault(p *string, def string) string {
	if p == nil {
		return def
	}
	return *p
}

// DecodeJSON decodes a mount entry's JSON form (the Python SDK's, as a parsed
// manifest renders it): the provider fields of its type and its
// mount_strategy (zero when absent). An unknown type or pattern type is an
// error wrapping ErrUnknownType.
func DecodeJSON(raw []byte) (*Mount, error) {
	var j EntryJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, err
	}
	m := &Mount{Type: j.Type, MountPath: j.MountPath, ReadOnly: j.ReadOnly == nil || *j.ReadOnly}
	switch j.Type {
	case TypeS3:
		m.S3 = &S3{Bucket: j.Bucket, AccessKeyID: j.AccessKeyID, SecretAccessKey: j.SecretAccessKey,
			SessionToken: j.SessionToken, Prefix: j.Prefix, Region: j.Region, Endpoint: j.EndpointURL,
			S3Provider: orDefault(j.S3Provider, "AWS")}
	case TypeGCS:
		m.GCS = &GCS{Bucket: j.Bucket, AccessID: j.AccessID, SecretAccessKey: j.SecretAccessKey, Prefix: j.Prefix,
			Region: j.Region, EndpointURL: j.EndpointURL, ServiceAccountFile: j.ServiceAccountFile,
			ServiceAccountCredentials: j.ServiceAccountCredentials, AccessToken: j.AccessToken}
	case TypeR2:
		m.R2 = &R2{Bucket: j.Bucket, AccountID: j.AccountID, AccessKeyID: j.AccessKeyID,
			SecretAccessKey: j.SecretAccessKey, CustomDomain: j.CustomDomain}
	case TypeAzureBlob:
		m.AzureBlob = &AzureBlob{Account: j.Account, Container: j.Container, Endpoint: j.Endpoint,
			IdentityClientID: j.IdentityClientID, AccountKey: j.AccountKey}
	case TypeBox:
		m.Box = &Box{Path: j.Path, ClientID: j.ClientID, ClientSecret: j.ClientSecret, AccessToken: j.AccessToken,
			Token: j.Token, BoxConfigFile: j.BoxConfigFile, ConfigCredentials: j.ConfigCredentials,
			BoxSubType: orDefault(j.BoxSubType, "user"), RootFolderID: j.RootFolderID, Impersonate: j.Impersonate,
			OwnedBy: j.OwnedBy}
	case TypeS3Files:
		extra, err := DecodeOptionsJSON(j.ExtraOptions)
		if err != nil {
			return nil, err
		}
		m.S3Files = &S3Files{FileSystemID: j.FileSystemID, Subpath: j.Subpath, MountTargetIP: j.MountTargetIP,
			AccessPoint: j.AccessPoint, Region: j.Region, ExtraOptions: extra}
	default:
		return nil, fmt.Errorf("%w: mount type %q", ErrUnknownType, j.Type)
	}
	if len(j.MountStrategy) > 0 {
		s, err := decodeStrategy(j.MountStrategy)
		if err != nil {
			return nil, err
		}
		m.Strategy = s
	}
	return m, nil
}

func decodeStrategy(raw json.RawMessage) (Strategy, error) {
	var j struct {
		Type          string            `json:"type"`
		Pattern       json.RawMessage   `json:"pattern"`
		Driver        string            `json:"driver"`
		DriverOptions map[string]string `json:"driver_options"`
	}
	if err := json.Unmarshal(raw, &j); err != nil {
		return Strategy{}, err
	}
	s := Strategy{Type: j.Type, Driver: j.Driver, DriverOptions: j.DriverOptions}
	if len(j.Pattern) > 0 {
		p, err := DecodePatternJSON(j.Pattern)
		if err != nil {
			return s, err
		}
		s.Pattern = p
	}
	return s, nil
}

// DecodePatternJSON decodes a pattern's JSON form with the Python SDK's defaults.
func DecodePatternJSON(raw []byte) (*Pattern, error) {
	var head struct {
		Type    string          `json:"type"`
		Options json.RawMessage `json:"options"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, err
	}
	p := &Pattern{Type: head.Type}
	switch head.Type {
	case PatternRclone:
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
		p.Rclone = &RclonePattern{Mode: orDefault(&j.Mode, "fuse"), RemoteName: j.RemoteName, ExtraArgs: j.ExtraArgs,
			NFSAddr: j.NFSAddr, NFSMountOptions: j.NFSMountOptions, ConfigFilePath: j.ConfigFilePath}
	case PatternFuse:
		f := DefaultFusePattern()
		if err := decodeFuse(raw, &f); err != nil {
			return nil, err
		}
		p.Fuse = &f
	case PatternMountpoint:
		p.Mountpoint = &MountpointOptions{}
		if len(head.Options) > 0 {
			var o struct {
				Prefix, Region *string
				EndpointURL    *string `json:"endpoint_url"`
			}
			if err := json.Unmarshal(head.Options, &o); err != nil {
				return nil, err
			}
			*p.Mountpoint = MountpointOptions{Prefix: o.Prefix, Region: o.Region, EndpointURL: o.EndpointURL}
		}
	case PatternS3Files:
		p.S3Files = &S3FilesOptions{}
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
			extra, err := DecodeOptionsJSON(o.ExtraOptions)
			if err != nil {
				return nil, err
			}
			*p.S3Files = S3FilesOptions{MountTargetIP: o.MountTargetIP, AccessPoint: o.AccessPoint,
				Region: o.Region, ExtraOptions: extra}
		}
	default:
		return nil, fmt.Errorf("%w: pattern type %q", ErrUnknownType, head.Type)
	}
	return p, nil
}

// decodeFuse overlays the fuse pattern fields present in raw on f.
func decodeFuse(raw json.RawMessage, f *FusePattern) error {
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
	f.LogType, f.LogLevel, f.CacheType = orDefault(j.LogType, f.LogType), orDefault(j.LogLevel, f.LogLevel), orDefault(j.CacheType, f.CacheType)
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
