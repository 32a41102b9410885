package posix

import (
	"strings"
	"testing"
)

func TestCheckEntryPlace(t *testing.T) {
	long := strings.Repeat("n", MaxNameBytes+1)
	for _, c := range []struct {
		rel   string
		isDir bool
		want  string // "" = accepted
	}{
		{"a/b.txt", false, ""},
		{strings.Repeat("n", MaxNameBytes), false, ""},
		{".", true, ""},
		{".", false, "names the workspace root itself"},
		{"d/" + long, true, "has a component of 256 bytes; file names are limited to 255 bytes"},
		{"a\x00b", false, `path "a\x00b" contains a NUL byte`},
		{strings.Repeat("a/", 2048), true, "paths are limited to 4095 bytes"},
	} {
		err := CheckEntryPlace(c.rel, c.isDir)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("CheckEntryPlace(%.30q, %v) = %v, want nil", c.rel, c.isDir, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("CheckEntryPlace(%.30q, %v) = %v, want %q", c.rel, c.isDir, err, c.want)
		case err != nil && strings.ContainsRune(err.Error(), 0):
			t.Errorf("error carries a raw NUL: %q", err.Error())
		}
	}
}

func TestEscapeControl(t *testing.T) {
	for in, want := range map[string]string{
		"plain\ttext\n":   "plain\ttext\n",
		"nul\x00esc\x1b[": `nul\x00esc\x1b[`,
		"bad\xffutf8":     `bad\xffutf8`,
		"ünïcode \uFFFD":  "ünïcode \uFFFD",
		"del\x7f":         `del\x7f`,
	} {
		if got := EscapeControl(in); got != want {
			t.Errorf("EscapeControl(%q) = %q, want %q", in, got, want)
		}
	}
}
