package sandbox

import (
	"strings"
	"unicode/utf8"
)

// DecodeUTF8Replace is Python's bytes.decode("utf-8", errors="replace"),
// used where the Python SDK decodes command output and workspace files:
// every maximal ill-formed subsequence becomes one U+FFFD.
func DecodeUTF8Replace(p []byte) string {
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
