package sandbox

import (
	"bytes"
	"errors"
	"sort"
	"strings"
)

// Redacted is what a secret is replaced by in redacted text, the Python
// SDK's "REDACTED" marker (SPEC §5.7).
const Redacted = "REDACTED"

// RedactText replaces every non-empty secret in text, and its shell-quoted
// form (ShellQuote) when that differs, by Redacted, in the order of secrets
// (the Python SDK's _redact_sensitive_values).
func RedactText(text string, secrets []string) string {
	for _, s := range secrets {
		if s == "" {
			continue
		}
		text = strings.ReplaceAll(text, s, Redacted)
		if q := ShellQuote(s); q != s {
			text = strings.ReplaceAll(text, q, Redacted)
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
func (s Secrets) Text(text string) string { return RedactText(text, s.values) }

// Bytes returns b with every secret replaced by Redacted; b itself is
// returned when it holds none.
func (s Secrets) Bytes(b []byte) []byte {
	for _, v := range s.values {
		if bytes.Contains(b, []byte(v)) || bytes.Contains(b, []byte(ShellQuote(v))) {
			return []byte(s.Text(string(b)))
		}
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
