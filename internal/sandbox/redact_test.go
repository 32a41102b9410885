package sandbox

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"
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
		ShellQuote(pw),
		`"p@ss w/rd+="`,
	} {
		got := RedactText("error: "+leaked+" end", secrets)
		if strings.Contains(got, pw) || strings.Contains(got, strings.TrimPrefix(strings.TrimPrefix(leaked, "Basic "), "Bearer ")) {
			t.Errorf("RedactText(%q) = %q: a form survived", leaked, got)
		}
		if !strings.Contains(got, Redacted) {
			t.Errorf("RedactText(%q) = %q: nothing redacted", leaked, got)
		}
	}
	if got := RedactText("no secret here", secrets); got != "no secret here" {
		t.Errorf("text without secrets changed: %q", got)
	}
	if BasicAuthPair(user, "") != "" || len(SecretForms("")) != 0 {
		t.Error("an empty secret must have no forms")
	}
	// The raw value goes first, as the Python SDK replaces it first.
	if got := RedactText("'a b'", []string{"a b"}); got != "'REDACTED'" {
		t.Errorf("raw-first order broken: %q", got)
	}
}
