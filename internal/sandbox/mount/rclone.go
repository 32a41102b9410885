package mount

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// RcloneRuntime is the runtime config one rclone mount runs with: the remote
// (section) name, the path inside the remote, the remote kind ("s3", "gcs",
// "gcs_s3", "r2", "azureblob", "box"), the mount type, the full rclone config
// text written for the mount, and whether it is read-only. Follows the
// Python SDK's RcloneMountConfig.
type RcloneRuntime struct {
	RemoteName, RemotePath, RemoteKind, MountType, ConfigText string
	ReadOnly                                                  bool
}

// SessionHex returns a session id in the 32-hex form the Python SDK uses in
// generated names (uuid.hex): dashes removed, lower case. "" stays "".
func SessionHex(sessionID string) string {
	return strings.ToLower(strings.ReplaceAll(sessionID, "-", ""))
}

// RemoteKind returns the rclone remote kind of a mount: "s3", "gcs" (GCS
// native), "gcs_s3" (GCS with both access_id and secret_access_key, which
// uses rclone's S3 backend), "r2", "azureblob" or "box"; s3_files_mount and
// unknown types → MountConfigError "invalid mount_pattern type" {type}.
// The GCS HMAC kind keeps generated remote names apart from an S3 mount's in
// the same session. Follows the Python SDK's provider build_in_container_mount_config.
func RemoteKind(m *Mount) (string, error) {
	switch {
	case m.Type == TypeS3 && m.S3 != nil:
		return "s3", nil
	case m.Type == TypeGCS && m.GCS != nil:
		if gcsHMAC(m.GCS) {
			return "gcs_s3", nil
		}
		return "gcs", nil
	case m.Type == TypeR2 && m.R2 != nil:
		return "r2", nil
	case m.Type == TypeAzureBlob && m.AzureBlob != nil:
		return "azureblob", nil
	case m.Type == TypeBox && m.Box != nil:
		return "box", nil
	}
	return "", NewConfigError("invalid mount_pattern type", map[string]any{"type": m.Type})
}

// RemotePath returns the path inside the remote a mount shows (design/sdk-model.md §5.4):
// S3 and GCS join the bucket and prefix ("bucket" when prefix is unset, else
// "bucket/" + prefix without leading slashes, a trailing slash kept), R2 the
// bucket, Azure the container, Box its path without leading slashes ("" when
// unset). Follows the Python SDK's _join_remote_path and BoxMount._remote_path.
func RemotePath(m *Mount) string {
	switch m.Type {
	case TypeS3:
		return joinRemotePath(m.S3.Bucket, m.S3.Prefix)
	case TypeGCS:
		return joinRemotePath(m.GCS.Bucket, m.GCS.Prefix)
	case TypeR2:
		return m.R2.Bucket
	case TypeAzureBlob:
		return m.AzureBlob.Container
	case TypeBox:
		return strings.TrimLeft(deref(m.Box.Path), "/")
	}
	return ""
}

func joinRemotePath(root string, prefix *string) string {
	if prefix == nil {
		return root
	}
	return root + "/" + strings.TrimLeft(*prefix, "/")
}

// RemoteName returns the rclone remote (section) name: the pattern's
// remote_name when set and non-empty, else "sandbox_<kind>_<session hex>".
// Follows the Python SDK's RcloneMountPattern.resolve_remote_name.
func RemoteName(p *RclonePattern, kind, sessionID string) string {
	if p != nil && truthy(p.RemoteName) {
		return *p.RemoteName
	}
	return "sandbox_" + kind + "_" + SessionHex(sessionID)
}

// RcloneConfig builds the runtime config of an rclone mount (design/sdk-model.md §5.5): the
// remote name, path and kind, and the config text, which is the provider's
// lines joined by "\n" with a trailing "\n". When the pattern has a
// config_file_path, existing must hold that file's content (the caller reads
// it from the workspace, as Apply does): the provider's lines without their
// "[name]" header are appended at the end of the remote's section and the
// rest of the file is kept as it is. sessionID may be the 32-hex or the
// dashed form.
//
// Errors (MountConfigError, NewConfigError): "mount session is missing
// session_id" {type} for an empty sessionID; "invalid mount_pattern type"
// {type} for a type rclone does not serve; the R2 key pair rule; with a
// config_file_path, "rclone config file is empty" {type, path} for a blank
// file and "rclone config missing required remote section" {type, path,
// remote_name} when no "[name]" line exists (path is config_file_path as
// given). Follows the Python SDK's _ConfiguredMount._build_rclone_config and the
// providers' _rclone_required_lines.
func RcloneConfig(m *Mount, p *RclonePattern, sessionID string, existing []byte) (RcloneRuntime, error) {
	path := ""
	if p != nil && p.ConfigFilePath != nil {
		path = *p.ConfigFilePath
	}
	return rcloneConfig(m, p, sessionID, existing, path)
}

func rcloneConfig(m *Mount, p *RclonePattern, sessionID string, existing []byte, configPath string) (RcloneRuntime, error) {
	if m.Type == TypeR2 && m.R2 != nil {
		if err := validateR2Pair(m.R2); err != nil {
			return RcloneRuntime{}, err
		}
	}
	kind, err := RemoteKind(m)
	if err != nil {
		return RcloneRuntime{}, err
	}
	if sessionID == "" {
		return RcloneRuntime{}, NewConfigError("mount session is missing session_id", map[string]any{"type": m.Type})
	}
	name := RemoteName(p, kind, sessionID)
	lines := rcloneLines(m, name)
	text := strings.Join(lines, "\n") + "\n"
	if p != nil && p.ConfigFilePath != nil {
		text, err = mergeRcloneConfig(sandbox.DecodeUTF8Replace(existing), name, lines, m.Type, configPath)
		if err != nil {
			return RcloneRuntime{}, err
		}
	}
	return RcloneRuntime{RemoteName: name, RemotePath: RemotePath(m), RemoteKind: kind, MountType: m.Type,
		ConfigText: text, ReadOnly: m.ReadOnly}, nil
}

func gcsHMAC(g *GCS) bool { return g.AccessID != nil && g.SecretAccessKey != nil }

const gcsEndpoint = "https://storage.googleapis.com"

// rcloneLines are the provider's required config lines (design/sdk-model.md §5.5), header
// first.
func rcloneLines(m *Mount, name string) []string {
	lines := []string{"[" + name + "]"}
	add := func(key string, v *string, when bool) {
		if when {
			lines = append(lines, key+" = "+*v)
		}
	}
	switch m.Type {
	case TypeS3:
		s := m.S3
		lines = append(lines, "type = s3", "provider = "+s3Provider(s))
		add("endpoint", s.Endpoint, s.Endpoint != nil)
		add("region", s.Region, s.Region != nil)
		lines = append(lines, "env_auth = false")
		if truthy(s.AccessKeyID) && truthy(s.SecretAccessKey) {
			add("access_key_id", s.AccessKeyID, true)
			add("secret_access_key", s.SecretAccessKey, true)
			add("session_token", s.SessionToken, truthy(s.SessionToken))
		}
	case TypeGCS:
		g := m.GCS
		if gcsHMAC(g) {
			lines = append(lines, "type = s3", "provider = GCS", "env_auth = false",
				"access_key_id = "+*g.AccessID, "secret_access_key = "+*g.SecretAccessKey,
				"endpoint = "+deref(pyOr(g.EndpointURL, strp(gcsEndpoint))))
			add("region", g.Region, truthy(g.Region))
			break
		}
		lines = append(lines, "type = google cloud storage")
		add("service_account_file", g.ServiceAccountFile, truthy(g.ServiceAccountFile))
		add("service_account_credentials", g.ServiceAccountCredentials, truthy(g.ServiceAccountCredentials))
		add("access_token", g.AccessToken, truthy(g.AccessToken))
		if !truthy(g.ServiceAccountFile) && !truthy(g.ServiceAccountCredentials) && !truthy(g.AccessToken) {
			lines = append(lines, "anonymous = true")
		}
		lines = append(lines, "env_auth = false")
	case TypeR2:
		r := m.R2
		lines = append(lines, "type = s3", "provider = Cloudflare", "endpoint = "+r2Endpoint(r), "acl = private",
			"env_auth = false")
		if truthy(r.AccessKeyID) && truthy(r.SecretAccessKey) {
			add("access_key_id", r.AccessKeyID, true)
			add("secret_access_key", r.SecretAccessKey, true)
		}
	case TypeAzureBlob:
		a := m.AzureBlob
		lines = append(lines, "type = azureblob", "account = "+a.Account)
		add("endpoint", a.Endpoint, truthy(a.Endpoint))
		switch {
		case truthy(a.AccountKey):
			add("key", a.AccountKey, true)
		case truthy(a.IdentityClientID):
			lines = append(lines, "use_msi = true", "msi_client_id = "+*a.IdentityClientID)
		default:
			lines = append(lines, "use_msi = false")
		}
	case TypeBox:
		b := m.Box
		lines = append(lines, "type = box")
		for _, f := range []struct {
			key string
			v   *string
		}{{"client_id", b.ClientID}, {"client_secret", b.ClientSecret}, {"access_token", b.AccessToken},
			{"token", b.Token}, {"box_config_file", b.BoxConfigFile}, {"config_credentials", b.ConfigCredentials},
			{"box_sub_type", nonUserSubType(b)}, {"root_folder_id", b.RootFolderID}, {"impersonate", b.Impersonate},
			{"owned_by", b.OwnedBy}} {
			add(f.key, f.v, f.v != nil)
		}
	}
	return lines
}

func s3Provider(s *S3) string {
	if s.S3Provider == "" {
		return "AWS"
	}
	return s.S3Provider
}

func r2Endpoint(r *R2) string {
	if truthy(r.CustomDomain) {
		return *r.CustomDomain
	}
	return "https://" + r.AccountID + ".r2.cloudflarestorage.com"
}

// nonUserSubType is box_sub_type when it is not the default "user".
func nonUserSubType(b *Box) *string {
	if b.BoxSubType == "" || b.BoxSubType == "user" {
		return nil
	}
	return &b.BoxSubType
}

// pyWS is Python's \s for str patterns (str.isspace()).
const pyWS = `[\t\n\v\f\r\x{1c}-\x{1f}\x{85}\p{Z}]`

var nextSectionRe = regexp.MustCompile(`(?m)^` + pyWS + `*\[.+\]` + pyWS + `*$`)

// mergeRcloneConfig is the Python SDK's read_config_text checks followed by
// _supplement_rclone_config_text, with Python's regular expressions
// (MULTILINE, Unicode \s) reproduced so the same section is found.
func mergeRcloneConfig(text, name string, lines []string, mountType, path string) (string, error) {
	if strings.TrimFunc(text, isPySpace) == "" {
		return "", NewConfigError("rclone config file is empty", map[string]any{"type": mountType, "path": path})
	}
	sectionRe := regexp.MustCompile(`(?m)^` + pyWS + `*\[` + regexp.QuoteMeta(name) + `\]` + pyWS + `*$`)
	loc := sectionRe.FindStringIndex(text)
	if loc == nil {
		return "", NewConfigError("rclone config missing required remote section",
			map[string]any{"type": mountType, "path": path, "remote_name": name})
	}
	bodyEnd := len(text)
	if next := nextSectionRe.FindStringIndex(text[loc[1]:]); next != nil {
		bodyEnd = loc[1] + next[0]
	}
	body := strings.TrimRight(text[loc[0]:bodyEnd], "\n")
	return text[:loc[0]] + body + "\n" + strings.Join(lines[1:], "\n") + "\n" + text[bodyEnd:], nil
}

// isPySpace is Python's str.isspace() for one character.
func isPySpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }
