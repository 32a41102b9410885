package conformance

import (
	"fmt"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

// The Python-like mount notation of the mount security vectors.

// secParseMount reads the vectors' mount notation:
// "<Class>[(<args>)] [<strategy>]" where args are "creds" (an S3 or GCS
// key pair), a Python dict of fields, "field=value" (read_only included),
// a positional S3 Files file system id, or the strategy itself; the
// strategy is "rclone[(...)]", "mountpoint[(...)]", "fuse", "s3files" or
// "docker_volume <driver>".
func secParseMount(s string) (*mount.Mount, error) {
	s = strings.TrimSpace(s)
	n := 0
	for n < len(s) && (secIsAlnum(s[n]) || s[n] == '_') {
		n++
	}
	class, rest := s[:n], strings.TrimSpace(s[n:])
	var args []string
	if strings.HasPrefix(rest, "(") {
		end := secClosingParen(rest)
		if end < 0 {
			return nil, fmt.Errorf("unbalanced mount notation %q", s)
		}
		args, rest = secSplit(rest[1:end], ','), strings.TrimSpace(rest[end+1:])
	}
	fields, strategy, readOnly := map[string]any{}, rest, true
	var positional []string
	for _, a := range args {
		a = strings.TrimSpace(a)
		key, value, isKV := secCut(a, '=')
		switch {
		case a == "creds":
			if class == "GCSMount" {
				fields["access_id"], fields["secret_access_key"] = "access-id", "secret-key"
			} else {
				fields["access_key_id"], fields["secret_access_key"] = "access-key", "secret-key"
			}
		case strings.HasPrefix(a, "{"):
			d, err := secPyValue(a)
			if err != nil {
				return nil, err
			}
			for k, v := range d.(map[string]any) {
				fields[k] = v
			}
		case isKV:
			v, err := secPyValue(value)
			if err != nil {
				return nil, err
			}
			if key == "read_only" {
				readOnly = v == true
			} else {
				fields[key] = v
			}
		case strings.Contains(a, " ") || a == "rclone" || a == "mountpoint" || a == "fuse" || a == "s3files":
			strategy = a
		default:
			positional = append(positional, a)
		}
	}
	m, err := secNotationMount(class, fields, positional)
	if err != nil {
		return nil, err
	}
	m.ReadOnly = readOnly
	m.Strategy, err = secParseStrategy(strategy)
	return m, err
}

func secNotationMount(class string, fields map[string]any, positional []string) (*mount.Mount, error) {
	m := &mount.Mount{}
	var targets map[string]**string
	switch class {
	case "S3Mount":
		m.Type, m.S3 = mount.TypeS3, &mount.S3{Bucket: "bucket", S3Provider: "AWS"}
		s := m.S3
		targets = map[string]**string{"access_key_id": &s.AccessKeyID, "secret_access_key": &s.SecretAccessKey,
			"session_token": &s.SessionToken, "prefix": &s.Prefix, "region": &s.Region, "endpoint_url": &s.Endpoint}
		if v, ok := fields["s3_provider"].(string); ok {
			s.S3Provider = v
			delete(fields, "s3_provider")
		}
	case "GCSMount":
		m.Type, m.GCS = mount.TypeGCS, &mount.GCS{Bucket: "bucket"}
		g := m.GCS
		targets = map[string]**string{"access_id": &g.AccessID, "secret_access_key": &g.SecretAccessKey,
			"prefix": &g.Prefix, "region": &g.Region, "endpoint_url": &g.EndpointURL,
			"service_account_file": &g.ServiceAccountFile, "service_account_credentials": &g.ServiceAccountCredentials,
			"access_token": &g.AccessToken}
	case "R2Mount":
		m.Type, m.R2 = mount.TypeR2, &mount.R2{Bucket: "bucket", AccountID: "account"}
		r := m.R2
		targets = map[string]**string{"access_key_id": &r.AccessKeyID, "secret_access_key": &r.SecretAccessKey,
			"custom_domain": &r.CustomDomain}
	case "AzureBlobMount":
		m.Type, m.AzureBlob = mount.TypeAzureBlob, &mount.AzureBlob{Account: "account", Container: "container"}
		a := m.AzureBlob
		if v, ok := fields["account"].(string); ok {
			a.Account = v
		}
		if v, ok := fields["container"].(string); ok {
			a.Container = v
		}
		delete(fields, "account")
		delete(fields, "container")
		targets = map[string]**string{"endpoint": &a.Endpoint, "identity_client_id": &a.IdentityClientID,
			"account_key": &a.AccountKey}
	case "S3FilesMount":
		m.Type, m.S3Files = mount.TypeS3Files, &mount.S3Files{FileSystemID: "fs-0"}
		if len(positional) > 0 {
			m.S3Files.FileSystemID, positional = positional[0], positional[1:]
		}
		if opts, ok := fields["extra_options"].(map[string]any); ok {
			for _, k := range mapKeys(opts) {
				v := fmt.Sprint(opts[k])
				m.S3Files.ExtraOptions = append(m.S3Files.ExtraOptions, mount.Option{Key: k, Value: &v})
			}
			delete(fields, "extra_options")
		}
		targets = map[string]**string{}
	default:
		return nil, unsupported("mount class %q", class)
	}
	if len(positional) > 0 {
		return nil, unsupported("positional mount arguments %q", positional)
	}
	for k, v := range fields {
		dst, ok := targets[k]
		s, isStr := v.(string)
		if !ok || !isStr {
			return nil, unsupported("mount field %s=%v", k, v)
		}
		*dst = &s
	}
	return m, nil
}

func secParseStrategy(s string) (mount.Strategy, error) {
	if driver, ok := strings.CutPrefix(s, "docker_volume "); ok {
		return mount.Strategy{Type: mount.StrategyDockerVolume, Driver: strings.TrimSpace(driver)}, nil
	}
	name, args := s, []string(nil)
	if i := strings.IndexByte(s, '('); i >= 0 && strings.HasSuffix(s, ")") {
		name, args = s[:i], secSplit(s[i+1:len(s)-1], ',')
	}
	p := &mount.Pattern{Type: name}
	switch name {
	case mount.PatternRclone:
		p.Rclone = &mount.RclonePattern{Mode: "fuse", ExtraArgs: []string{}}
	case mount.PatternMountpoint:
		p.Mountpoint = &mount.MountpointOptions{}
	case mount.PatternFuse:
		f := mount.DefaultFusePattern()
		p.Fuse = &f
	case mount.PatternS3Files:
		p.S3Files = &mount.S3FilesOptions{}
	default:
		return mount.Strategy{}, unsupported("mount strategy %q", s)
	}
	for _, a := range args {
		key, raw, _ := secCut(strings.TrimSpace(a), '=')
		v, err := secPyValue(raw)
		if err != nil {
			return mount.Strategy{}, err
		}
		str, _ := v.(string)
		switch {
		case name == mount.PatternRclone && key == "extra_args":
			for _, e := range v.([]any) {
				p.Rclone.ExtraArgs = append(p.Rclone.ExtraArgs, e.(string))
			}
		case name == mount.PatternRclone && key == "remote_name":
			p.Rclone.RemoteName = &str
		case name == mount.PatternRclone && key == "config_file_path":
			p.Rclone.ConfigFilePath = &str
		case name == mount.PatternMountpoint && key == "options.endpoint_url":
			p.Mountpoint.EndpointURL = &str
		default:
			return mount.Strategy{}, unsupported("pattern argument %q", a)
		}
	}
	return mount.Strategy{Type: mount.StrategyInContainer, Pattern: p}, nil
}

// secPyValue reads a Python literal of the notation: a quoted string
// (with \n, \\ and quote escapes), True, False, None, a list, a dict
// (bare or quoted keys and values), or a bare word taken as a string.
func secPyValue(s string) (any, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "True" || s == "False":
		return s == "True", nil
	case s == "None":
		return nil, nil
	case strings.HasPrefix(s, "'") || strings.HasPrefix(s, `"`):
		var b strings.Builder
		for i := 1; i < len(s)-1; i++ {
			if s[i] == '\\' && i+1 < len(s)-1 {
				i++
				switch s[i] {
				case 'n':
					b.WriteByte('\n')
				case 'r':
					b.WriteByte('\r')
				case 't':
					b.WriteByte('\t')
				default:
					b.WriteByte(s[i])
				}
				continue
			}
			b.WriteByte(s[i])
		}
		return b.String(), nil
	case strings.HasPrefix(s, "["):
		out := []any{}
		for _, item := range secSplit(s[1:len(s)-1], ',') {
			if strings.TrimSpace(item) == "" {
				continue
			}
			v, err := secPyValue(item)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case strings.HasPrefix(s, "{"):
		out := map[string]any{}
		for _, item := range secSplit(s[1:len(s)-1], ',') {
			k, v, ok := secCut(strings.TrimSpace(item), ':')
			if !ok {
				return nil, unsupported("dict item %q", item)
			}
			key, err := secPyValue(k)
			if err != nil {
				return nil, err
			}
			val, err := secPyValue(v)
			if err != nil {
				return nil, err
			}
			out[fmt.Sprint(key)] = val
		}
		return out, nil
	}
	return s, nil
}

// secSplit splits s at sep outside quotes and brackets.
func secSplit(s string, sep byte) []string {
	var out []string
	for {
		i := secIndex(s, sep)
		if i < 0 {
			return append(out, s)
		}
		out, s = append(out, s[:i]), s[i+1:]
	}
}

func secCut(s string, sep byte) (string, string, bool) {
	if i := secIndex(s, sep); i >= 0 {
		return strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:]), true
	}
	return s, "", false
}

// secIndex finds sep outside quotes and (), [], {}; -1 if absent.
func secIndex(s string, sep byte) int {
	depth, quote := 0, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			switch c {
			case '\\':
				i++
			case quote:
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == sep && depth == 0:
			return i
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		}
	}
	return -1
}

// secClosingParen returns the index of the parenthesis closing s[0].
func secClosingParen(s string) int {
	if i := secIndex(s[1:], ')'); i >= 0 {
		return i + 1
	}
	return -1
}

func secIsAlnum(c byte) bool {
	return (c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'z')
}
