package redact

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

func TestRedactTextEveryEncoding(t *testing.T) {
	const user, pw = "agent", "p@ss w/rd+="
	pair := BasicAuthPair(user, pw)
	secrets := []string{pair, pw}
	for _, leaked := range []string{
		pw,
		"Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pw)),
		"Bearer " + pw,
		base64.StdEncoding.EncodeToString([]byte(pw)),
		base64.RawURLEncoding.EncodeToString([]byte(pw)),
		url.QueryEscape(pw),
		url.PathEscape(pw),
		sandbox.ShellQuote(pw),
		`"p@ss w/rd+="`,
	} {
		got := Text("error: "+leaked+" end", secrets)
		if strings.Contains(got, pw) || strings.Contains(got, strings.TrimPrefix(strings.TrimPrefix(leaked, "Basic "), "Bearer ")) {
			t.Errorf("Text(%q) = %q: a form survived", leaked, got)
		}
		if !strings.Contains(got, Redacted) {
			t.Errorf("Text(%q) = %q: nothing redacted", leaked, got)
		}
	}
	if got := Text("no secret here", secrets); got != "no secret here" {
		t.Errorf("text without secrets changed: %q", got)
	}
	if BasicAuthPair(user, "") != "" || len(SecretForms("")) != 0 {
		t.Error("an empty secret must have no forms")
	}
	// The raw value goes first, as the Python SDK replaces it first.
	if got := Text("'a b'", []string{"a b"}); got != "'REDACTED'" {
		t.Errorf("raw-first order broken: %q", got)
	}
}

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
