package mount

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// VolumeDriverOptions returns the Docker volume of a docker_volume mount
// (design/sdk-model.md §5.6): the driver, its option map, and the read-only flag of the
// Docker mount (the entry's read_only). The options are the generated ones
// with the strategy's driver_options merged last (user keys override):
//
//   - S3 rclone: type=s3, s3-provider, path=<bucket[/prefix]>, then when set
//     s3-access-key-id, s3-secret-access-key, s3-session-token, s3-endpoint,
//     s3-region; S3 mountpoint: bucket, then when set access_key_id,
//     secret_access_key, session_token, endpoint_url, region, prefix;
//   - GCS rclone with both access_id and secret_access_key: type=s3, path,
//     s3-provider=GCS, s3-access-key-id, s3-secret-access-key, s3-endpoint
//     (default https://storage.googleapis.com), [s3-region]; GCS rclone
//     native: type=google cloud storage, path, [gcs-service-account-file],
//     [gcs-service-account-credentials], [gcs-access-token]; GCS mountpoint:
//     bucket, endpoint_url (default Google), then access_key_id,
//     secret_access_key, region, prefix when set;
//   - R2: type=s3, path=<bucket>, s3-provider=Cloudflare, s3-endpoint (custom
//     domain or https://<account_id>.r2.cloudflarestorage.com), keys when set;
//   - Azure: type=azureblob, path=<container>, azureblob-account, then when
//     set azureblob-endpoint, azureblob-msi-client-id, azureblob-key;
//   - Box: type=box, path, then when set box-client-id, box-client-secret,
//     box-access-token, box-token, box-box-config-file,
//     box-config-credentials, box-box-sub-type (not "user"),
//     box-root-folder-id, box-impersonate, box-owned-by.
//
// Errors: those of Validate (an unsupported driver is "invalid Docker
// volume driver" {type, driver}), and MountConfigError "mount strategy is
// not docker_volume" {type} for an in-container mount. Follows the Python SDK's
// providers' build_docker_volume_driver_config.
func VolumeDriverOptions(m *Mount) (driver string, options map[string]string, readOnly bool, err error) {
	if err := m.Validate(); err != nil {
		return "", nil, false, err
	}
	if m.Strategy.Type != StrategyDockerVolume {
		return "", nil, false, NewConfigError("mount strategy is not docker_volume", map[string]any{"type": m.Type})
	}
	driver = m.Strategy.Driver
	o := map[string]string{}
	set := func(k string, v *string) {
		if v != nil {
			o[k] = *v
		}
	}
	switch m.Type {
	case TypeS3:
		s := m.S3
		if driver == "rclone" {
			o["type"], o["s3-provider"], o["path"] = "s3", s3Provider(s), joinRemotePath(s.Bucket, s.Prefix)
			set("s3-access-key-id", s.AccessKeyID)
			set("s3-secret-access-key", s.SecretAccessKey)
			set("s3-session-token", s.SessionToken)
			set("s3-endpoint", s.Endpoint)
			set("s3-region", s.Region)
			break
		}
		o["bucket"] = s.Bucket
		set("access_key_id", s.AccessKeyID)
		set("secret_access_key", s.SecretAccessKey)
		set("session_token", s.SessionToken)
		set("endpoint_url", s.Endpoint)
		set("region", s.Region)
		set("prefix", s.Prefix)
	case TypeGCS:
		g := m.GCS
		endpoint := deref(pyOr(g.EndpointURL, strp(gcsEndpoint)))
		switch {
		case driver == "rclone" && gcsHMAC(g):
			o["type"], o["path"], o["s3-provider"] = "s3", joinRemotePath(g.Bucket, g.Prefix), "GCS"
			o["s3-access-key-id"], o["s3-secret-access-key"], o["s3-endpoint"] = *g.AccessID, *g.SecretAccessKey, endpoint
			set("s3-region", g.Region)
		case driver == "rclone":
			o["type"], o["path"] = "google cloud storage", joinRemotePath(g.Bucket, g.Prefix)
			set("gcs-service-account-file", g.ServiceAccountFile)
			set("gcs-service-account-credentials", g.ServiceAccountCredentials)
			set("gcs-access-token", g.AccessToken)
		default:
			o["bucket"], o["endpoint_url"] = g.Bucket, endpoint
			set("access_key_id", g.AccessID)
			set("secret_access_key", g.SecretAccessKey)
			set("region", g.Region)
			set("prefix", g.Prefix)
		}
	case TypeR2:
		r := m.R2
		o["type"], o["path"], o["s3-provider"], o["s3-endpoint"] = "s3", r.Bucket, "Cloudflare", r2Endpoint(r)
		set("s3-access-key-id", r.AccessKeyID)
		set("s3-secret-access-key", r.SecretAccessKey)
	case TypeAzureBlob:
		a := m.AzureBlob
		o["type"], o["path"], o["azureblob-account"] = "azureblob", a.Container, a.Account
		set("azureblob-endpoint", a.Endpoint)
		set("azureblob-msi-client-id", a.IdentityClientID)
		set("azureblob-key", a.AccountKey)
	case TypeBox:
		b := m.Box
		o["type"], o["path"] = "box", RemotePath(m)
		set("box-client-id", b.ClientID)
		set("box-client-secret", b.ClientSecret)
		set("box-access-token", b.AccessToken)
		set("box-token", b.Token)
		set("box-box-config-file", b.BoxConfigFile)
		set("box-config-credentials", b.ConfigCredentials)
		set("box-box-sub-type", nonUserSubType(b))
		set("box-root-folder-id", b.RootFolderID)
		set("box-impersonate", b.Impersonate)
		set("box-owned-by", b.OwnedBy)
	}
	for k, v := range m.Strategy.DriverOptions {
		o[k] = v
	}
	return driver, o, m.ReadOnly, nil
}

// VolumeName returns the Docker volume name of a mount (design/sdk-model.md §6.2):
// "sandbox_[<session hex>_]<h>_<suffix>", where the session part is left
// out for an empty sessionID (which may be dashed or 32-hex), <h> is the
// first 12 hex digits of SHA-256 of the mount path, and <suffix> is the path
// without leading and trailing "/" with every character outside
// [A-Za-z0-9_.-] replaced by "_" ("workspace" when that is empty). The hash
// keeps /workspace/a_b and /workspace/a/b apart. Follows the Python SDK's
// _docker_volume_name.
func VolumeName(sessionID, mountPath string) string {
	p := posix.PurePosix(mountPath)
	sum := sha256.Sum256([]byte(p))
	var b strings.Builder
	for _, r := range strings.Trim(p, "/") {
		if r == '_' || r == '.' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	suffix := b.String()
	if suffix == "" {
		suffix = "workspace"
	}
	sid := ""
	if sessionID != "" {
		sid = SessionHex(sessionID) + "_"
	}
	return "sandbox_" + sid + hex.EncodeToString(sum[:])[:12] + "_" + suffix
}
