package mount

import (
	"context"
	"strconv"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// AzureRuntime is the runtime config of a blobfuse2 (fuse) mount of an Azure
// Blob container. Follows the Python SDK's FuseMountConfig.
type AzureRuntime struct {
	Account, Container                     string
	Endpoint, IdentityClientID, AccountKey *string
	MountType                              string
	ReadOnly                               bool
}

// AzureConfig builds the fuse runtime config of an azure_blob_mount; other
// types → MountConfigError "invalid mount_pattern type" {type}. Follows the
// Python SDK's AzureBlobMount.build_in_container_mount_config.
func AzureConfig(m *Mount) (AzureRuntime, error) {
	if m.Type != TypeAzureBlob || m.AzureBlob == nil {
		return AzureRuntime{}, NewConfigError("invalid mount_pattern type", map[string]any{"type": m.Type})
	}
	a := m.AzureBlob
	return AzureRuntime{Account: a.Account, Container: a.Container, Endpoint: a.Endpoint,
		IdentityClientID: a.IdentityClientID, AccountKey: a.AccountKey, MountType: m.Type, ReadOnly: m.ReadOnly}, nil
}

func fuseCacheType(p *FusePattern) string {
	if p.CacheType == "" {
		return "block_cache"
	}
	return p.CacheType
}

// BlobfuseYAML renders the blobfuse2 config file (design/sdk-model.md §5.5) for the
// pattern, the runtime config and the absolute cache directory: 2-space
// indentation, a blank line after each block; "allow-other: true" only when
// enabled; logging; components (libfuse, the cache type, attr_cache,
// azstorage); a libfuse block only with entry or negative-entry timeouts;
// the block_cache (block-size-mb, mem-size-mb, path, disk-size-mb,
// disk-timeout-sec) or file_cache (path, timeout-sec, max-size-mb) block;
// attr_cache timeout-sec (7200 when unset, 0 kept); azstorage with type
// block, account-name, container, endpoint (default
// https://<account>.blob.core.windows.net), then "auth-type: key" and
// account-key when a key is set else "mode: msi", then identity-client-id
// when set. A cache size of 0 or unset is 50000 (block) or 4096 (file); a
// file cache max size of 0 or unset is the cache size. Follows the Python SDK's
// FuseMountPattern.BlobfuseConfig.to_text.
func BlobfuseYAML(p *FusePattern, rt AzureRuntime, cacheDir string) string {
	itoa := func(n int64) string { return strconv.FormatInt(n, 10) }
	cacheType := fuseCacheType(p)
	size := int64(50000)
	if cacheType != "block_cache" {
		size = 4096
	}
	if p.CacheSizeMB != nil && *p.CacheSizeMB != 0 {
		size = *p.CacheSizeMB
	}
	maxSize := size
	if p.FileCacheMaxSizeMB != nil && *p.FileCacheMaxSizeMB != 0 {
		maxSize = *p.FileCacheMaxSizeMB
	}
	var l []string
	if p.AllowOther {
		l = append(l, "allow-other: true", "")
	}
	l = append(l, "logging:", "  type: "+p.LogType, "  level: "+p.LogLevel, "",
		"components:", "  - libfuse", "  - "+cacheType, "  - attr_cache", "  - azstorage", "")
	var lf []string
	if p.EntryCacheTimeoutSec != nil {
		lf = append(lf, "  entry-expiration-sec: "+itoa(*p.EntryCacheTimeoutSec))
	}
	if p.NegativeEntryCacheTimeoutSec != nil {
		lf = append(lf, "  negative-entry-expiration-sec: "+itoa(*p.NegativeEntryCacheTimeoutSec))
	}
	if len(lf) > 0 {
		l = append(append(append(l, "libfuse:"), lf...), "")
	}
	if cacheType == "block_cache" {
		l = append(l, "block_cache:", "  block-size-mb: "+itoa(p.BlockCacheBlockSizeMB), "  mem-size-mb: "+itoa(size),
			"  path: "+cacheDir, "  disk-size-mb: "+itoa(size), "  disk-timeout-sec: "+itoa(p.BlockCacheDiskTimeoutSec), "")
	} else {
		l = append(l, "file_cache:", "  path: "+cacheDir, "  timeout-sec: "+itoa(p.FileCacheTimeoutSec),
			"  max-size-mb: "+itoa(maxSize), "")
	}
	attr := int64(7200)
	if p.AttrCacheTimeoutSec != nil {
		attr = *p.AttrCacheTimeoutSec
	}
	endpoint := "https://" + rt.Account + ".blob.core.windows.net"
	if truthy(rt.Endpoint) {
		endpoint = *rt.Endpoint
	}
	l = append(l, "attr_cache:", "  timeout-sec: "+itoa(attr), "", "azstorage:", "  type: block",
		"  account-name: "+rt.Account, "  container: "+rt.Container, "  endpoint: "+endpoint)
	if truthy(rt.AccountKey) {
		l = append(l, "  auth-type: key", "  account-key: "+*rt.AccountKey)
	} else {
		l = append(l, "  mode: msi")
	}
	if truthy(rt.IdentityClientID) {
		l = append(l, "  identity-client-id: "+*rt.IdentityClientID)
	}
	return strings.Join(append(l, ""), "\n")
}

// blobfusePaths returns the root-relative cache directory (cache_path, or
// .sandbox-blobfuse-cache/<sid>/<account>/<container>), config directory
// (.sandbox-blobfuse-config/<sid>) and config file (<account>_<container>
// with "/" replaced by "_", .yaml) of a blobfuse2 mount.
func blobfusePaths(p *FusePattern, rt AzureRuntime, sid string) (cacheRel, configDir, configRel string) {
	cacheRel = posix.CoercePosix(".sandbox-blobfuse-cache/" + sid + "/" + rt.Account + "/" + rt.Container)
	if p.CachePath != nil {
		cacheRel = posix.PurePosix(*p.CachePath)
	}
	configDir = posix.CoercePosix(".sandbox-blobfuse-config/" + sid)
	name := strings.ReplaceAll(rt.Account+"_"+rt.Container, "/", "_")
	return cacheRel, configDir, posix.JoinPosix(configDir, posix.PurePosix(name+".yaml"))
}

// ApplyFuse mounts an Azure Blob container with blobfuse2 at mountPath
// (absolute, or relative to the root), with the Python SDK's command sequence:
// probe "command -v blobfuse2 >/dev/null 2>&1" (NewToolMissingError
// "blobfuse2" {account, container}); a cache directory equal to or inside
// the mount → MountConfigError "blobfuse cache_path must be outside the
// mount path" {mount_path, cache_path} before anything is created; mkdir -p
// the mount, the cache and the config directories (the last two are
// persist-skip paths); write the BlobfuseYAML config and chmod 0600 it;
// run blobfuse2 mount [--read-only] --config-file <yaml> <mount> (argument
// vector). A failed mount → NewCommandError {account, container}. An empty
// sessionID → "mount session is missing session_id". A nil p means
// DefaultFusePattern. Follows the Python SDK's FuseMountPattern.apply.
func ApplyFuse(ctx context.Context, s Session, p *FusePattern, rt AzureRuntime, mountPath, sessionID string) (Applied, error) {
	if p == nil {
		d := DefaultFusePattern()
		p = &d
	}
	var out Applied
	r := newRunner(ctx, s, &out)
	acctCtx := map[string]any{"account": rt.Account, "container": rt.Container}
	if err := r.probe("command -v blobfuse2 >/dev/null 2>&1", "blobfuse2", acctCtx); err != nil {
		return out, err
	}
	sid, err := requireSession(sessionID, rt.MountType)
	if err != nil {
		return out, err
	}
	cacheRel, configDir, configRel := blobfusePaths(p, rt, sid)
	mount, cache := r.abs(mountPath), r.abs(cacheRel)
	if _, inside := posix.RelativeTo(cache, mount); inside {
		return out, NewConfigError("blobfuse cache_path must be outside the mount path",
			map[string]any{"mount_path": mount, "cache_path": cache})
	}
	if err := r.mkdir(mount); err != nil {
		return out, err
	}
	if p.CachePath == nil {
		r.generated(cache)
	}
	if err := r.mkdir(cache); err != nil {
		return out, err
	}
	if err := r.mkdir(r.abs(configDir)); err != nil {
		return out, err
	}
	r.skip(cacheRel)
	r.skip(configDir)
	if err := r.writeSensitive(configRel, BlobfuseYAML(p, rt, cache)); err != nil {
		return out, err
	}
	cmd := []string{"blobfuse2", "mount"}
	if rt.ReadOnly {
		cmd = append(cmd, "--read-only")
	}
	cmd = append(cmd, "--config-file", r.abs(configRel), mount)
	res, err := r.exec(cmd...)
	if err != nil {
		return out, err
	}
	if res.ExitCode != 0 {
		return out, commandFailed(spaceJoin(cmd), res, acctCtx)
	}
	return out, nil
}
