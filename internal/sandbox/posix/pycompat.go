package posix

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the few pieces of Python string behaviour that the Python SDK's
// messages depend on: repr() of a str and str.isspace/strip (UTF-8 decoding
// with errors="replace" is the core package's DecodeUTF8Replace).

// pyRepr returns the Python repr() of s: single-quoted unless s contains a
// single quote and no double quote, with backslash, the chosen quote, \t, \n
// and \r escaped, other control characters as \xNN, and non-printable
// characters as \xNN, \uNNNN or \UNNNNNNNN. Bytes that are not valid UTF-8
// (which a Python str cannot hold) are rendered as \xNN.
func pyRepr(s string) string {
	quote := '\''
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	var b strings.Builder
	b.WriteRune(quote)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, `\x%02x`, s[i])
			i++
			continue
		}
		i += size
		switch {
		case r == quote || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < ' ' || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x7f || unicode.IsPrint(r):
			b.WriteRune(r)
		case r <= 0xff:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteRune(quote)
	return b.String()
}

// pyIsSpace reports whether Python's str.isspace() holds for r: Unicode
// white space plus the ASCII information separators U+001C..U+001F.
func pyIsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// pyStrip is Python's str.strip() with no argument.
func pyStrip(s string) string {
	return strings.TrimFunc(s, pyIsSpace)
}
