package redact

import (
	"encoding/base64"
	"errors"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// Redacted replaces every secret in a redacted text, the Python SDK's
// marker.
const Redacted = "REDACTED"

// SecretForms returns every spelling of secret that a server, a tool or a
// library may echo back into an error or a log line: the raw value first
// (as the Python SDK replaces it first), then, longest first, its
// shell-quoted form (ShellQuote), its Go/JSON-quoted body,
// its URL query and path escapes, and its standard, URL-safe and unpadded
// base64 encodings. A "Bearer <token>" header carries the raw value and a
// "Basic <base64(user:password)>" header the base64 of the pair, so callers
// that hold a user and a password add BasicAuthPair(user, password) as a
// secret of its own. An empty secret has no forms.
func SecretForms(secret string) []string {
	if secret == "" {
		return nil
	}
	q := strconv.Quote(secret)
	forms := []string{
		secret, sandbox.ShellQuote(secret), q[1 : len(q)-1], url.QueryEscape(secret), url.PathEscape(secret),
		base64.StdEncoding.EncodeToString([]byte(secret)), base64.URLEncoding.EncodeToString([]byte(secret)),
		base64.RawStdEncoding.EncodeToString([]byte(secret)), base64.RawURLEncoding.EncodeToString([]byte(secret)),
	}
	seen := map[string]bool{}
	out := forms[:0]
	for _, f := range forms {
		if f != "" && !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	rest := out[1:]
	sort.SliceStable(rest, func(i, j int) bool { return len(rest[i]) > len(rest[j]) })
	return out
}

// BasicAuthPair is the "user:password" text that HTTP basic authentication
// encodes in base64; as a secret its forms cover the Authorization header.
// It is "" when password is empty.
func BasicAuthPair(user, password string) string {
	if password == "" {
		return ""
	}
	return user + ":" + password
}

// AllSecretForms is SecretForms of every secret, in order, each form once.
func AllSecretForms(secrets ...string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range secrets {
		for _, f := range SecretForms(s) {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// Text replaces every form (SecretForms) of every secret in text by
// Redacted, secret by secret in the order given, so that the result never
// holds a secret in any encoding this package knows. It is the one
// redaction of the provider: mount, Git and Docker errors all go through
// it.
func Text(text string, secrets []string) string {
	for _, s := range secrets {
		for _, f := range SecretForms(s) {
			text = strings.ReplaceAll(text, f, Redacted)
		}
	}
	return text
}

// Secrets is a set of values that must not appear in what the provider
// keeps or shows: command output, error messages. The zero value holds no
// secret and redacts nothing.
type Secrets struct {
	values []string
}

// NewSecrets returns the set of the non-empty values, longest first so that
// a secret containing another is replaced whole.
func NewSecrets(values ...string) Secrets {
	var s Secrets
	return s.With(values...)
}

// With returns s plus values.
func (s Secrets) With(values ...string) Secrets {
	seen := map[string]bool{}
	out := make([]string, 0, len(s.values)+len(values))
	for _, v := range append(append([]string{}, s.values...), values...) {
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return Secrets{values: out}
}

// Empty reports whether s holds no secret.
func (s Secrets) Empty() bool { return len(s.values) == 0 }

// Text returns text with every secret replaced by Redacted.
func (s Secrets) Text(text string) string { return Text(text, s.values) }

// Bytes returns b with every secret replaced by Redacted; b itself is
// returned when it holds none.
func (s Secrets) Bytes(b []byte) []byte {
	if s.Empty() {
		return b
	}
	if t := s.Text(string(b)); t != string(b) {
		return []byte(t)
	}
	return b
}

// Error returns err with every secret replaced in its text. An error that
// held no secret is returned unchanged; otherwise the result carries only
// the redacted text, so the original cannot be reached by unwrapping, but
// it still matches (errors.Is) each of keep that err matched.
func (s Secrets) Error(err error, keep ...error) error {
	if err == nil {
		return nil
	}
	msg := s.Text(err.Error())
	if msg == err.Error() {
		return err
	}
	r := &redactedError{msg: msg}
	for _, k := range keep {
		if errors.Is(err, k) {
			r.is = append(r.is, k)
		}
	}
	return r
}

type redactedError struct {
	msg string
	is  []error
}

func (e *redactedError) Error() string { return e.msg }

func (e *redactedError) Is(target error) bool {
	for _, k := range e.is {
		if k == target { //nolint:errorlint // comparing sentinels kept from the original error
			return true
		}
	}
	return false
}
