package sandbox

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// EscapeTerminal makes text that came out of a sandbox safe to show on a
// terminal: in an error, a warning or a plan. Newlines and tabs are kept;
// every other C0 control, DEL and C1 control (escape sequences, carriage
// returns that overwrite a line, the CSI introducer U+009B) becomes \xNN;
// bidirectional controls, zero-width characters, the byte-order mark and
// the line and paragraph separators (which reorder, hide or break what a
// reviewer reads) become \uNNNN; invalid UTF-8 becomes U+FFFD. Text without
// any of them is returned unchanged.
func EscapeTerminal(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, unsafeOnTerminal) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case !unsafeOnTerminal(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// unsafeOnTerminal reports the runes EscapeTerminal escapes.
func unsafeOnTerminal(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	case r == '\u2028' || r == '\u2029' || r == '\uFEFF' || (r >= '\u200B' && r <= '\u200D') || (r >= '\u2060' && r <= '\u2064'):
		return true
	}
	return unicode.Is(unicode.Bidi_Control, r)
}
