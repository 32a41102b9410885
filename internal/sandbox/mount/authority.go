package mount

import (
	"regexp"
	"strings"
)

// Field tables of the Python SDK's credential boundary (design/sdk-model.md §5.8), keyed by
// mount type; field names are the Python SDK's JSON names.

// authorityFields are the fields that grant access: secrets, and
// identifiers such as a managed-identity client id that grant access
// without being secret.
var authorityFields = map[string][]string{
	TypeAzureBlob: {"identity_client_id", "account_key"},
	TypeBox:       {"client_secret", "access_token", "token", "box_config_file", "config_credentials"},
	TypeGCS:       {"access_id", "secret_access_key", "service_account_file", "service_account_credentials", "access_token"},
	TypeR2:        {"access_key_id", "secret_access_key"},
	TypeS3:        {"access_key_id", "secret_access_key", "session_token"},
}

// authorityFileFields are the authority fields that name a credential file.
var authorityFileFields = map[string][]string{
	TypeBox: {"box_config_file"},
	TypeGCS: {"service_account_file"},
}

// urlFields are the endpoint fields that may carry inline authority.
var urlFields = map[string][]string{
	TypeAzureBlob: {"endpoint"},
	TypeGCS:       {"endpoint_url"},
	TypeR2:        {"custom_domain"},
	TypeS3:        {"endpoint_url"},
}

// rcloneValueFields are the free-form values written into rclone
// configuration lines; each must stay on one line.
var rcloneValueFields = map[string][]string{
	TypeAzureBlob: {"account", "endpoint", "identity_client_id", "account_key"},
	TypeBox: {"client_id", "client_secret", "access_token", "token", "box_config_file", "config_credentials",
		"root_folder_id", "impersonate", "owned_by"},
	TypeGCS: {"access_id", "secret_access_key", "region", "endpoint_url", "service_account_file",
		"service_account_credentials", "access_token"},
	TypeR2: {"account_id", "access_key_id", "secret_access_key", "custom_domain"},
	TypeS3: {"s3_provider", "endpoint_url", "region", "access_key_id", "secret_access_key", "session_token"},
}

// credentialSets are the inline credential sets: any configured field of
// the first list activates the set, which then needs every field of the
// second list non-blank.
var credentialSets = map[string][2][]string{
	TypeGCS: {{"access_id", "secret_access_key"}, {"access_id", "secret_access_key"}},
	TypeR2:  {{"access_key_id", "secret_access_key"}, {"access_key_id", "secret_access_key"}},
	TypeS3:  {{"access_key_id", "secret_access_key", "session_token"}, {"access_key_id", "secret_access_key"}},
}

// Field names of strategy- and pattern-level authority.
const (
	fieldDriverOptions        = "mount_strategy.driver_options"
	fieldRemoteName           = "mount_strategy.pattern.remote_name"
	fieldConfigFilePath       = "mount_strategy.pattern.config_file_path"
	fieldExtraArgs            = "mount_strategy.pattern.extra_args"
	fieldPatternEndpointURL   = "mount_strategy.pattern.options.endpoint_url"
	fieldPatternExtraOptions  = "mount_strategy.pattern.options.extra_options"
	fieldS3FilesExtraOptions  = "extra_options"
	strategyBoundaryContainer = "in_container"
	strategyBoundaryExternal  = "external"
)

// strategyClasses are the strategies the engine models, with the Python SDK's
// boundary ("in_container" runs a helper inside the sandbox, "external" is
// attached by the backend) and the backend an external one belongs to. The
// Python SDK's extension strategies are not modelled.
var strategyClasses = map[string]struct{ boundary, backend string }{
	StrategyInContainer:  {strategyBoundaryContainer, ""},
	StrategyDockerVolume: {strategyBoundaryExternal, "docker"},
}

// capability is an SDK-supported in-container way of exposing credentials:
// the mount-scoped and broad authority fields it can carry, whether it
// discovers broad ambient credentials by itself, and (Box) the fields of
// which one must hold a non-interactive authentication source.
type capability struct {
	strategy, mountType, pattern string
	scoped, broad                map[string]bool
	implicitBroad                bool
	requiredAny                  []string
}

func nameSet(names ...string) map[string]bool {
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out
}

// capabilities follow the Python SDK's table (design/sdk-model.md §5.8): rclone for S3, R2,
// GCS, Azure and Box; mountpoint for S3 and GCS (mount-scoped keys only);
// fuse for Azure and s3files, both implicitly broad.
var capabilities = []capability{
	{strategy: StrategyInContainer, mountType: TypeS3, pattern: PatternRclone,
		scoped: nameSet("access_key_id", "secret_access_key", "session_token"), broad: nameSet(fieldConfigFilePath)},
	{strategy: StrategyInContainer, mountType: TypeR2, pattern: PatternRclone,
		scoped: nameSet("access_key_id", "secret_access_key"), broad: nameSet(fieldConfigFilePath)},
	{strategy: StrategyInContainer, mountType: TypeGCS, pattern: PatternRclone,
		scoped: nameSet("access_id", "secret_access_key", "service_account_credentials", "access_token"),
		broad:  nameSet("service_account_file", fieldConfigFilePath)},
	{strategy: StrategyInContainer, mountType: TypeAzureBlob, pattern: PatternRclone,
		scoped: nameSet("account_key"), broad: nameSet("identity_client_id", fieldConfigFilePath)},
	{strategy: StrategyInContainer, mountType: TypeBox, pattern: PatternRclone,
		scoped:      nameSet("client_secret", "access_token", "token", "config_credentials"),
		broad:       nameSet("box_config_file", fieldConfigFilePath),
		requiredAny: []string{"access_token", "token", "config_credentials", "box_config_file"}},
	{strategy: StrategyInContainer, mountType: TypeS3, pattern: PatternMountpoint,
		scoped: nameSet("access_key_id", "secret_access_key", "session_token"), broad: nameSet()},
	{strategy: StrategyInContainer, mountType: TypeGCS, pattern: PatternMountpoint,
		scoped: nameSet("access_id", "secret_access_key"), broad: nameSet()},
	{strategy: StrategyInContainer, mountType: TypeAzureBlob, pattern: PatternFuse,
		scoped: nameSet("account_key"), broad: nameSet("identity_client_id"), implicitBroad: true},
	{strategy: StrategyInContainer, mountType: TypeS3Files, pattern: PatternS3Files,
		scoped: nameSet(), broad: nameSet(fieldS3FilesExtraOptions, fieldPatternExtraOptions), implicitBroad: true},
}

func findCapability(mountType, strategyType, patternType string) *capability {
	for i := range capabilities {
		c := &capabilities[i]
		if c.strategy == strategyType && c.mountType == mountType && c.pattern == patternType {
			return c
		}
	}
	return nil
}

// inContainerPatternType is the type of m's in-container pattern, "" when it has none
// (or its strategy takes no pattern).
func inContainerPatternType(m *Mount) string {
	if m.Strategy.Pattern == nil || m.Strategy.Type != StrategyInContainer {
		return ""
	}
	return m.Strategy.Pattern.Type
}

// providerStringFields maps the provider's string fields, by Python SDK name, to their
// values (nil when unset). Required and defaulted fields are always set. It
// is empty when the provider struct matching m.Type is missing.
func providerStringFields(m *Mount) map[string]*string {
	str := func(s string) *string { return &s }
	switch {
	case m.Type == TypeS3 && m.S3 != nil:
		s := m.S3
		return map[string]*string{"bucket": str(s.Bucket), "access_key_id": s.AccessKeyID,
			"secret_access_key": s.SecretAccessKey, "session_token": s.SessionToken, "prefix": s.Prefix,
			"region": s.Region, "endpoint_url": s.Endpoint, "s3_provider": str(s.S3Provider)}
	case m.Type == TypeGCS && m.GCS != nil:
		g := m.GCS
		return map[string]*string{"bucket": str(g.Bucket), "access_id": g.AccessID,
			"secret_access_key": g.SecretAccessKey, "prefix": g.Prefix, "region": g.Region,
			"endpoint_url": g.EndpointURL, "service_account_file": g.ServiceAccountFile,
			"service_account_credentials": g.ServiceAccountCredentials, "access_token": g.AccessToken}
	case m.Type == TypeR2 && m.R2 != nil:
		r := m.R2
		return map[string]*string{"bucket": str(r.Bucket), "account_id": str(r.AccountID),
			"access_key_id": r.AccessKeyID, "secret_access_key": r.SecretAccessKey, "custom_domain": r.CustomDomain}
	case m.Type == TypeAzureBlob && m.AzureBlob != nil:
		a := m.AzureBlob
		return map[string]*string{"account": str(a.Account), "container": str(a.Container),
			"endpoint": a.Endpoint, "identity_client_id": a.IdentityClientID, "account_key": a.AccountKey}
	case m.Type == TypeBox && m.Box != nil:
		b := m.Box
		return map[string]*string{"path": b.Path, "client_id": b.ClientID, "client_secret": b.ClientSecret,
			"access_token": b.AccessToken, "token": b.Token, "box_config_file": b.BoxConfigFile,
			"config_credentials": b.ConfigCredentials, "box_sub_type": str(b.BoxSubType),
			"root_folder_id": b.RootFolderID, "impersonate": b.Impersonate, "owned_by": b.OwnedBy}
	case m.Type == TypeS3Files && m.S3Files != nil:
		f := m.S3Files
		return map[string]*string{"file_system_id": str(f.FileSystemID), "subpath": f.Subpath,
			"mount_target_ip": f.MountTargetIP, "access_point": f.AccessPoint, "region": f.Region}
	}
	return map[string]*string{}
}

// rcloneLineBreakFields are the rclone configuration value fields of m that
// contain "\r" or "\n", in the Python SDK's table order.
func rcloneLineBreakFields(m *Mount) []string {
	fields := providerStringFields(m)
	var out []string
	for _, name := range rcloneValueFields[m.Type] {
		if v := fields[name]; v != nil && containsLineBreak(*v) {
			out = append(out, name)
		}
	}
	return out
}

func containsLineBreak(s string) bool { return strings.ContainsAny(s, "\r\n") }

// CredentialFields returns the names of m's configured authority fields,
// following the Python SDK's _configured_mount_authority_fields (design/sdk-model.md §5.8), in
// its order without repeats: set provider authority fields (S3
// access_key_id, secret_access_key, session_token; GCS access_id,
// secret_access_key, service_account_file, service_account_credentials,
// access_token; R2 key pair; Azure identity_client_id, account_key; Box
// client_secret, access_token, token, box_config_file,
// config_credentials), endpoint fields with inline authority, rclone
// configuration values with line breaks, then "mount_strategy.driver_options"
// (non-empty), "mount_strategy.pattern.remote_name" (unsafe),
// "mount_strategy.pattern.config_file_path" (set),
// "mount_strategy.pattern.extra_args" (unsafe),
// "mount_strategy.pattern.options.endpoint_url" (inline authority),
// "mount_strategy.pattern.options.extra_options" (non-empty) and
// "extra_options" (S3 Files, non-empty). Provider field names are the ones
// the Terraform layer exposes as write-only "<field>_wo" attributes.
func CredentialFields(m *Mount) []string {
	if m == nil {
		return nil
	}
	fields := providerStringFields(m)
	var out []string
	for _, name := range authorityFields[m.Type] {
		if fields[name] != nil {
			out = append(out, name)
		}
	}
	for _, name := range urlFields[m.Type] {
		if v := fields[name]; v != nil && URLContainsInlineAuthority(*v) {
			out = append(out, name)
		}
	}
	out = append(out, rcloneLineBreakFields(m)...)
	if m.Strategy.Type == StrategyDockerVolume && len(m.Strategy.DriverOptions) > 0 {
		out = append(out, fieldDriverOptions)
	}
	if p := m.Strategy.Pattern; p != nil {
		switch pt := inContainerPatternType(m); {
		case pt == PatternRclone && p.Rclone != nil:
			if !RemoteNameIsSafe(p.Rclone.RemoteName) {
				out = append(out, fieldRemoteName)
			}
			if p.Rclone.ConfigFilePath != nil {
				out = append(out, fieldConfigFilePath)
			}
			if safe, _, _ := RcloneExtraArgsAnalysis(p.Rclone.ExtraArgs); !safe {
				out = append(out, fieldExtraArgs)
			}
		case pt == PatternMountpoint && p.Mountpoint != nil:
			if v := p.Mountpoint.EndpointURL; v != nil && URLContainsInlineAuthority(*v) {
				out = append(out, fieldPatternEndpointURL)
			}
		case pt == PatternS3Files && p.S3Files != nil:
			if len(p.S3Files.ExtraOptions) > 0 {
				out = append(out, fieldPatternExtraOptions)
			}
		}
	}
	if m.Type == TypeS3Files && m.S3Files != nil && len(m.S3Files.ExtraOptions) > 0 {
		out = append(out, fieldS3FilesExtraOptions)
	}
	return firstOccurrences(out)
}

// HasAuthority reports whether m carries, or may hide, mount authority,
// following the Python SDK's _mount_has_or_may_hide_configured_authority: a
// mount, strategy or pattern type the engine does not know, a capability
// that discovers broad ambient credentials by itself (in-container fuse
// and s3files), or any CredentialFields. A nil m has none.
func HasAuthority(m *Mount) bool {
	if m == nil {
		return false
	}
	if provenanceError(m) != nil {
		return true
	}
	if c := findCapability(m.Type, m.Strategy.Type, inContainerPatternType(m)); c != nil && c.implicitBroad {
		return true
	}
	return len(CredentialFields(m)) > 0
}

var safeRemoteName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_. -]*$`)

// RemoteNameIsSafe reports whether an rclone remote_name can be kept,
// following the Python SDK's _rclone_remote_name_is_safe (design/sdk-model.md §5.7): nil and ""
// are safe; otherwise the name must match [A-Za-z0-9_][A-Za-z0-9_. -]*
// with no surrounding white space (":s3,secret_access_key=x", " lead" and
// "-x" are unsafe).
func RemoteNameIsSafe(name *string) bool {
	return name == nil || remoteNameIsSafe(*name)
}

func remoteNameIsSafe(name string) bool {
	return name == "" || (name == trimPySpace(name) && safeRemoteName.MatchString(name))
}

// rawRemoteNameIsSafe applies the check to a decoded JSON value.
func rawRemoteNameIsSafe(v any) bool {
	switch s := v.(type) {
	case nil:
		return true
	case string:
		return remoteNameIsSafe(s)
	}
	return false
}

// RcloneExtraArgsAnalysis classifies rclone extra_args, following the
// Python SDK's _rclone_extra_args_analysis (design/sdk-model.md §5.7). safe holds only when every
// argument is "--allow-other" or one of "--uid", "--gid", "--buffer-size"
// with a value ("=v" or a following argument not starting with "-");
// option names compare case-insensitively with "_" read as "-" and any
// number of leading dashes. Every "--config" makes the set unsafe: its path
// ("--config=p" or "--config p") is collected in configPaths (never nil),
// and invalidConfigPath is set when it has no usable path.
func RcloneExtraArgsAnalysis(args []string) (safe bool, configPaths []string, invalidConfigPath bool) {
	raw := make([]any, len(args))
	for i, a := range args {
		raw[i] = a
	}
	return analyzeExtraArgs(raw)
}

// analyzeExtraArgs is RcloneExtraArgsAnalysis over decoded JSON values,
// where a non-string argument is unsafe.
func analyzeExtraArgs(args []any) (safe bool, configPaths []string, invalidConfigPath bool) {
	safe, configPaths = true, []string{}
	valueArg := func(i int) (string, bool) {
		if i >= len(args) {
			return "", false
		}
		s, ok := args[i].(string)
		return s, ok && !strings.HasPrefix(s, "-")
	}
	for i := 0; i < len(args); {
		arg, ok := args[i].(string)
		if !ok || !strings.HasPrefix(arg, "-") {
			safe = false
			i++
			continue
		}
		option, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		switch name := strings.ReplaceAll(strings.ToLower(option), "_", "-"); {
		case name == "config":
			safe = false
			switch {
			case hasValue && value != "":
				configPaths = append(configPaths, value)
				i++
			case !hasValue && i+1 < len(args):
				if next, ok := valueArg(i + 1); ok {
					configPaths = append(configPaths, next)
				} else {
					invalidConfigPath = true
				}
				i += 2
			default:
				invalidConfigPath = true
				i++
			}
			continue
		case name == "allow-other" && !hasValue:
			i++
			continue
		case name == "uid" || name == "gid" || name == "buffer-size":
			if hasValue && value != "" {
				i++
				continue
			}
			if _, ok := valueArg(i + 1); !hasValue && ok {
				i += 2
				continue
			}
		}
		safe = false
		i++
	}
	return safe, configPaths, invalidConfigPath
}

// AuthorityFields returns the authority fields of mount type typ (none for
// another type), in the Python SDK's order.
func AuthorityFields(typ string) []string {
	return append([]string(nil), authorityFields[typ]...)
}
