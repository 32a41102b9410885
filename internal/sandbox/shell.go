package sandbox

import (
	"regexp"
	"strings"
)

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9@%+=:,./_-]+$`)

// ShellQuote quotes s for a POSIX shell exactly as Python's shlex.quote
// does: "" becomes ”, strings made only of [A-Za-z0-9@%+=:,./_-] are left
// as they are, anything else is single-quoted with each ' written '"'"'.
func ShellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

// ShellJoin is Python's shlex.join: every argument ShellQuote-d, joined by
// single spaces (the Python SDK's command shaping, design/sdk-model.md §4.5).
func ShellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = ShellQuote(a)
	}
	return strings.Join(q, " ")
}
