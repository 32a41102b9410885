package sandbox

import (
	"strings"
	"testing"
)

func TestValidateAccountName(t *testing.T) {
	for _, c := range []struct{ kind, name, want string }{
		{"user", "agent", ""},
		{"user", "svc_1.a-b", ""},
		{"group", "root", ""},
		{"user", "", "must not be empty"},
		{"user", "root", "superuser"},
		{"user", "../etc", "must not start with '.'"},
		{"user", "-x", "must not start with '-'"},
		{"user", "a;id", `contains ";"`},
		{"user", "a$(id)", `contains "$"`},
		{"group", "g b", `contains " "`},
		{"group", "1000", "all digits"},
		{"user", strings.Repeat("a", 33), "limited to 32 bytes"},
		{"user", "a\x00b", `"a\x00b" contains "\x00"`},
	} {
		err := ValidateAccountName(c.kind, c.name)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %q: unexpected error %v", c.kind, c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %q: error %v, want one containing %q", c.kind, c.name, err, c.want)
		}
	}
	if err := ValidateGroupRef("1000"); err != nil {
		t.Errorf("a numeric gid is a valid group reference: %v", err)
	}
	if err := ValidateGroupRef(""); err == nil {
		t.Error("an empty group reference must be refused")
	}
}

func TestValidateEnvName(t *testing.T) {
	for name, ok := range map[string]bool{"PATH": true, "lower_case": true, "": false, "A=B": false, "=X": false, "A\x00": false} {
		if err := ValidateEnvName(name); (err == nil) != ok {
			t.Errorf("ValidateEnvName(%q) = %v", name, err)
		}
	}
	if ValidateEnvValue("K", "a\x00b") == nil || ValidateEnvValue("K", "a=b") != nil {
		t.Error("ValidateEnvValue refuses NUL bytes only")
	}
}
