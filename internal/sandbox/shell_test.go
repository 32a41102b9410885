package sandbox

import "testing"

func TestShellQuote(t *testing.T) {
	// Expected values are what Python's shlex.quote / shlex.join print.
	for in, want := range map[string]string{
		"":            "''",
		"abc":         "abc",
		"a b":         "'a b'",
		"it's":        `'it'"'"'s'`,
		"/tmp/x.txt":  "/tmp/x.txt",
		"$HOME":       "'$HOME'",
		"a=b,c:d@e%f": "a=b,c:d@e%f",
		"é":           "'é'",
	} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
	if got, want := ShellJoin([]string{"sh", "-lc", "echo hi > out.txt"}), `sh -lc 'echo hi > out.txt'`; got != want {
		t.Errorf("ShellJoin = %s, want %s", got, want)
	}
}
