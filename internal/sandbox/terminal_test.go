package sandbox

import "testing"

func TestEscapeTerminal(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text\n\twith tab", "plain text\n\twith tab"},
		{"", ""},
		{"red \x1b[31mtext\x1b[0m", `red \x1b[31mtext\x1b[0m`},
		{"PASS\rFAIL", `PASS\x0dFAIL`},
		{"bell\x07 del\x7f", `bell\x07 del\x7f`},
		{"csi \u009b2J", `csi \x9b2J`},
		{"abc\u202Edcba", `abc\u202edcba`},               // right-to-left override
		{"is\u2066olated\u2069", `is\u2066olated\u2069`}, // isolates
		{"zero\u200Bwidth\u200D\uFEFF", `zero\u200bwidth\u200d\ufeff`},
		{"line\u2028para\u2029", `line\u2028para\u2029`},
		{"word\u2060joiner", `word\u2060joiner`},
		{"bad \xff byte", "bad \uFFFD byte"},
		{"ünïcödé ✓ 日本", "ünïcödé ✓ 日本"},
	} {
		if got := EscapeTerminal(c.in); got != c.want {
			t.Errorf("EscapeTerminal(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
