package sandbox

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestSecretsRedact(t *testing.T) {
	s := NewSecrets("tok", "", "tok-long", "it's")
	cases := []struct{ in, want string }{
		{"a tok-long b tok", "a REDACTED b REDACTED"},
		{"quoted 'it'\"'\"'s' and it's", "quoted REDACTED and REDACTED"},
		{"nothing here", "nothing here"},
	}
	for _, c := range cases {
		if got := s.Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := string(s.Bytes([]byte(c.in))); got != c.want {
			t.Errorf("Bytes(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if !(Secrets{}).Empty() || s.Empty() {
		t.Error("Empty is wrong")
	}
	if got := NewSecrets("a").With("b", "a").values; len(got) != 2 {
		t.Errorf("With keeps duplicates: %q", got)
	}
}

func TestSecretsError(t *testing.T) {
	sentinel, other := errors.New("sentinel"), errors.New("other")
	s := NewSecrets("pw-123")
	plain := fmt.Errorf("no secret: %w", sentinel)
	if got := s.Error(plain, sentinel); got != plain { //nolint:errorlint // the very same error must come back
		t.Errorf("an error without secret was replaced: %v", got)
	}
	err := s.Error(fmt.Errorf("login with pw-123 failed: %w", sentinel), sentinel, other)
	if strings.Contains(err.Error(), "pw-123") || !strings.Contains(err.Error(), "login with REDACTED failed") {
		t.Errorf("not redacted: %v", err)
	}
	if !errors.Is(err, sentinel) || errors.Is(err, other) {
		t.Errorf("sentinels: Is(sentinel)=%v Is(other)=%v", errors.Is(err, sentinel), errors.Is(err, other))
	}
	if errors.Unwrap(err) != nil {
		t.Error("the original error can be reached by unwrapping")
	}
	if s.Error(nil) != nil {
		t.Error("nil error")
	}
}
