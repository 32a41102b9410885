package sandbox

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the few pieces of Python string behaviour that the Python SDK's
// messages depend on: repr() of a str, str.isspace/strip, and UTF-8 decoding
// with errors="replace".

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

// decodeUTF8Replace is Python's bytes.decode("utf-8", errors="replace"):
// every maximal ill-formed subsequence becomes one U+FFFD.
func decodeUTF8Replace(p []byte) string {
	if utf8.Valid(p) {
		return string(p)
	}
	var b strings.Builder
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRune(p[i:])
		if r != utf8.RuneError || size > 1 {
			b.Write(p[i : i+size])
			i += size
			continue
		}
		need, lo, hi := 0, byte(0x80), byte(0xbf)
		switch c := p[i]; {
		case c >= 0xc2 && c <= 0xdf:
			need = 1
		case c == 0xe0:
			need, lo = 2, 0xa0
		case c == 0xed:
			need, hi = 2, 0x9f
		case c >= 0xe1 && c <= 0xef:
			need = 2
		case c == 0xf0:
			need, lo = 3, 0x90
		case c == 0xf4:
			need, hi = 3, 0x8f
		case c >= 0xf1 && c <= 0xf3:
			need = 3
		}
		n := 1
		for k := 0; k < need && i+n < len(p); k++ {
			if x := p[i+n]; x < lo || x > hi {
				break
			}
			n++
			lo, hi = 0x80, 0xbf
		}
		b.WriteRune(utf8.RuneError)
		i += n
	}
	return b.String()
}
