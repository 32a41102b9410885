package mount

import (
	"context"
	"errors"
	"sort"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/redact"
)

// Redacted replaces every secret in a redacted error text, the Python SDK's
// "REDACTED" marker.
const Redacted = redact.Redacted

// Messages of the errors Sanitize builds (design/sdk-model.md §5.7), verbatim from the Python SDK.
const (
	// MsgInvalidConfiguration replaces a mount configuration error whose
	// message is not known to be free of configured values.
	MsgInvalidConfiguration = "sandbox mount configuration is invalid"
	// MsgProtectedOperation replaces any other error raised while a mount
	// carrying authority was in use.
	MsgProtectedOperation = "sandbox operation failed while using a protected mount configuration"
)

// safeConfigMessages are the mount configuration error messages that never
// carry a configured value, so Sanitize keeps them: the credential boundary
// and provenance messages (the ones the Python SDK marks as safe), and the fixed
// texts of the generators' configuration errors (design/sdk-model.md §5.1–5.5), whose
// values only ever travel in the error context. The Python SDK does not mark the
// latter and reports them as MsgInvalidConfiguration when the mount carries
// authority; keeping them tells the user which setting is wrong without
// revealing any value.
var safeConfigMessages = map[string]bool{
	MsgInvalidConfiguration: true,
	// Credential boundary (design/sdk-model.md §5.8).
	msgDockerVolumeBackend:        true,
	msgStrategyBackend:            true,
	msgManifestCredentialFile:     true,
	msgConfigLineBreak:            true,
	msgIncompleteCredentialSet:    true,
	msgBlankAuthorityValue:        true,
	msgBoxNonInteractive:          true,
	msgUnsupportedCombination:     true,
	msgUnsupportedCredentialField: true,
	msgNoMountScopedSupport:       true,
	msgNoBroadSupport:             true,
	msgMountScopedNotAcknowledged: true,
	msgBroadNotAcknowledged:       true,
	msgCustomMount:                true,
	msgCustomStrategy:             true,
	msgCustomPattern:              true,
	// Generated configurations and commands (design/sdk-model.md §5.1, §5.4, §5.5).
	"mount type must support at least one mount strategy":                  true,
	"invalid mount_pattern type":                                           true,
	"invalid Docker volume driver":                                         true,
	"r2 credentials must include both access_key_id and secret_access_key": true,
	"blobfuse cache_path must be relative to the workspace root":           true,
	"blobfuse cache_path must be outside the mount path":                   true,
	"rclone config file is empty":                                          true,
	"rclone config missing required remote section":                        true,
	"mount pattern received incompatible runtime config":                   true,
	"mount session is missing session_id":                                  true,
}

// IsSafeConfigMessage reports whether a mount configuration error message
// is one of the fixed, value-free texts this package produces (the list
// Sanitize keeps; everything else becomes MsgInvalidConfiguration).
func IsSafeConfigMessage(msg string) bool { return safeConfigMessages[msg] }

// URLContainsInlineAuthority reports whether an endpoint URL carries inline
// authority, following the Python SDK's _url_contains_inline_authority (design/sdk-model.md
// §5.7): it contains "@", Python's urlsplit refuses it, or it has a
// username, a password or a non-empty query. "https://user:pw@host" and
// "https://host?sig=x" are sensitive; "http://localhost:9000",
// "https://host/path#frag" and "https://host/?" are not.
func URLContainsInlineAuthority(v string) bool {
	if strings.Contains(v, "@") {
		return true
	}
	u, err := pyURLSplit(v)
	if err != nil {
		return true
	}
	return u.username != nil || u.password != nil || u.query != ""
}

// rawURLIsSensitive is the Python SDK's check applied to a decoded JSON value:
// null is not sensitive, any other non-string is.
func rawURLIsSensitive(v any) bool {
	switch s := v.(type) {
	case nil:
		return false
	case string:
		return URLContainsInlineAuthority(s)
	}
	return true
}

// InlineURLAuthorityValues returns the values to redact from errors for an
// endpoint URL, following the Python SDK's _inline_url_authority_values (design/sdk-model.md
// §5.7): nothing when the URL carries no inline authority; else the URL,
// then the username, password and raw query each followed by its
// percent-decoded form, then every non-empty query value (as parse_qsl
// decodes it) followed by its decoded form once more, first occurrences
// kept. When urlsplit refuses the URL only the URL itself is returned.
func InlineURLAuthorityValues(v string) []string {
	if !URLContainsInlineAuthority(v) {
		return nil
	}
	values := []string{v}
	u, err := pyURLSplit(v)
	if err != nil {
		return values
	}
	for _, part := range []*string{u.username, u.password, &u.query} {
		if part != nil && *part != "" {
			values = append(values, *part, pyUnquote(*part))
		}
	}
	for _, qv := range pyParseQSLValues(u.query) {
		if qv != "" {
			values = append(values, qv, pyUnquote(qv))
		}
	}
	return firstOccurrences(values)
}

// Secrets returns the values to redact from errors raised while m is in
// use (design/sdk-model.md §5.7, §5.8), first occurrences kept: every non-empty authority
// field value (CredentialFields' provider fields), the inline authority
// values of the endpoint URLs (InlineURLAuthorityValues of the provider
// endpoint and of the mountpoint endpoint_url option), the Docker
// driver_options values (sorted by key), the S3 Files extra_options values
// (mount, then pattern), an unsafe rclone remote_name, and each argument of
// unsafe rclone extra_args with the value after its "=". A nil m has none.
func Secrets(m *Mount) []string {
	if m == nil {
		return nil
	}
	var out []string
	fields := providerStringFields(m)
	for _, name := range authorityFields[m.Type] {
		if v := fields[name]; v != nil && *v != "" {
			out = append(out, *v)
		}
	}
	for _, name := range urlFields[m.Type] {
		if v := fields[name]; v != nil {
			out = append(out, InlineURLAuthorityValues(*v)...)
		}
	}
	if m.Type == TypeS3Files && m.S3Files != nil {
		out = appendOptionValues(out, m.S3Files.ExtraOptions)
	}
	if opts := m.Strategy.DriverOptions; len(opts) > 0 {
		keys := make([]string, 0, len(opts))
		for k := range opts {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if opts[k] != "" {
				out = append(out, opts[k])
			}
		}
	}
	if p := m.Strategy.Pattern; p != nil {
		switch {
		case p.Rclone != nil:
			if !RemoteNameIsSafe(p.Rclone.RemoteName) {
				out = append(out, *p.Rclone.RemoteName)
			}
			if safe, _, _ := RcloneExtraArgsAnalysis(p.Rclone.ExtraArgs); !safe {
				for _, a := range p.Rclone.ExtraArgs {
					if _, v, ok := strings.Cut(a, "="); ok && v != "" {
						out = append(out, v)
					}
					if a != "" {
						out = append(out, a)
					}
				}
			}
		case p.Mountpoint != nil && p.Mountpoint.EndpointURL != nil:
			out = append(out, InlineURLAuthorityValues(*p.Mountpoint.EndpointURL)...)
		case p.S3Files != nil:
			out = appendOptionValues(out, p.S3Files.ExtraOptions)
		}
	}
	return firstOccurrences(out)
}

func appendOptionValues(out []string, opts []Option) []string {
	for _, o := range opts {
		if o.Value != nil && *o.Value != "" {
			out = append(out, *o.Value)
		}
	}
	return out
}

// Redact returns err with every non-empty secret replaced by Redacted, in
// the order of secrets, following the Python SDK's _redact_sensitive_values (design/sdk-model.md
// §5.7): the raw value, then its shell-quoted form (sandbox.ShellQuote),
// and beyond the Python SDK every other encoding redact.SecretForms knows
// (base64, URL escapes, quoted), so an echoed Authorization header or a
// URL-encoded query never carries a secret out. A *sandbox.Error keeps its Code, Op and Retryable; its Message,
// string Context values (also inside lists and maps) and Cause are
// redacted. Any other error becomes a plain error with the redacted text.
// A nil err gives nil.
func Redact(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	se, ok := err.(*sandbox.Error) //nolint:errorlint // only an unwrapped error keeps its structure; a wrapped one is redacted as text, wrapper included
	if !ok {
		return errors.New(redactText(err.Error(), secrets))
	}
	out := *se
	out.Message = redactText(se.Message, secrets)
	if se.Context != nil {
		ctx := make(map[string]any, len(se.Context))
		for k, v := range se.Context {
			ctx[k] = redactValue(v, secrets)
		}
		out.Context = ctx
	}
	out.Cause = Redact(se.Cause, secrets)
	return &out
}

func redactText(text string, secrets []string) string { return redact.Text(text, secrets) }

func redactValue(v any, secrets []string) any {
	switch x := v.(type) {
	case string:
		return redactText(x, secrets)
	case []byte:
		return []byte(redactText(string(x), secrets))
	case []string:
		out := make([]string, len(x))
		for i, s := range x {
			out[i] = redactText(s, secrets)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = redactValue(e, secrets)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = redactValue(e, secrets)
		}
		return out
	}
	return v
}

// Sanitize is the Python SDK's mount error boundary (design/sdk-model.md §5.7), applied to an
// error raised while m was in use, and only when m carries authority
// (HasAuthority); otherwise err is returned unchanged. A mount
// configuration error (*sandbox.Error with CodeMountConfigInvalid) keeps its
// message only when IsSafeConfigMessage holds, else it reads
// MsgInvalidConfiguration; any other *sandbox.Error keeps Code, Op and
// Retryable with message MsgProtectedOperation; both lose their Context
// (empty) and Cause. A bare cancellation or deadline becomes
// context.Canceled or context.DeadlineExceeded; anything else becomes a
// plain error reading MsgProtectedOperation. Wrapped *sandbox.Error values
// are found with errors.As.
func Sanitize(err error, m *Mount) error {
	if err == nil || !HasAuthority(m) {
		return err
	}
	var se *sandbox.Error
	if errors.As(err, &se) {
		msg := MsgProtectedOperation
		if se.Code == sandbox.CodeMountConfigInvalid {
			msg = MsgInvalidConfiguration
			if IsSafeConfigMessage(se.Message) {
				msg = se.Message
			}
		}
		out := &sandbox.Error{Code: se.Code, Op: se.Op, Message: msg, Context: map[string]any{}}
		if se.Retryable != nil {
			r := *se.Retryable
			out.Retryable = &r
		}
		return out
	}
	switch {
	case errors.Is(err, context.Canceled):
		return context.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return context.DeadlineExceeded
	}
	return errors.New(MsgProtectedOperation)
}

// firstOccurrences keeps the first occurrence of each value, in order.
func firstOccurrences(values []string) []string {
	seen := make(map[string]bool, len(values))
	out := values[:0:0]
	for _, v := range values {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
