package mount

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"

	"errors"
	"net/netip"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file reproduces the Python semantics the Python SDK's mount security
// helpers rely on: urllib.parse's urlsplit (netloc, query and its
// ValueErrors), the userinfo split, unquote and
// parse_qsl(keep_blank_values=True); str.strip(); truth values.

var errURLSplit = errors.New("invalid URL")

// pyURL is what the Python SDK reads from urlsplit(v): the network location, the
// raw query, and the username and password (nil when absent).
type pyURL struct {
	netloc, query      string
	username, password *string
}

const pySchemeChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-."

// nfkcURLDelimiters are the non-ASCII characters whose NFKC form holds one
// of "/?#@:"; urlsplit refuses a netloc that contains one.
const nfkcURLDelimiters = "\u2047\u2048\u2049\u2100\u2101\u2105\u2106\u2a74\ufe13\ufe16\ufe55\ufe56\ufe5f\ufe6b\uff03\uff0f\uff1a\uff1f\uff20"

var ipvFuture = regexp.MustCompile(`^v[a-fA-F0-9]+\..+$`)

// pyURLSplit follows Python's urlsplit: leading C0 controls and spaces are
// dropped, tabs and line breaks removed, a scheme is taken when the text
// before the first ":" is a valid scheme, a netloc when "//" follows.
// Unbalanced or invalid bracketed hosts and netlocs that NFKC-normalise to
// a delimiter are errors, as in Python.
func pyURLSplit(v string) (pyURL, error) {
	v = strings.TrimLeft(v, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"+
		"\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
	v = strings.NewReplacer("\t", "", "\r", "", "\n", "").Replace(v)
	if i := strings.IndexByte(v, ':'); i > 0 && isASCIILetter(v[0]) {
		if strings.Trim(v[:i], pySchemeChars) == "" {
			v = v[i+1:]
		}
	}
	var u pyURL
	if strings.HasPrefix(v, "//") {
		rest := v[2:]
		end := len(rest)
		if j := strings.IndexAny(rest, "/?#"); j >= 0 {
			end = j
		}
		u.netloc, v = rest[:end], rest[end:]
		if strings.Contains(u.netloc, "[") != strings.Contains(u.netloc, "]") {
			return pyURL{}, errURLSplit
		}
		if _, after, ok := strings.Cut(u.netloc, "["); ok {
			host, _, _ := strings.Cut(after, "]")
			if !bracketedHostValid(host) {
				return pyURL{}, errURLSplit
			}
		}
	}
	if i := strings.IndexByte(v, '#'); i >= 0 {
		v = v[:i]
	}
	if _, q, ok := strings.Cut(v, "?"); ok {
		u.query = q
	}
	if strings.ContainsAny(u.netloc, nfkcURLDelimiters) {
		return pyURL{}, errURLSplit
	}
	if i := strings.LastIndexByte(u.netloc, '@'); i >= 0 {
		user, pass, hasPass := strings.Cut(u.netloc[:i], ":")
		u.username = &user
		if hasPass {
			u.password = &pass
		}
	}
	return u, nil
}

func isASCIILetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

// bracketedHostValid is Python's _check_bracketed_host: an IPvFuture
// literal, or an IPv6 address (an IPv4 one is refused).
func bracketedHostValid(host string) bool {
	if strings.HasPrefix(host, "v") {
		return ipvFuture.MatchString(host)
	}
	addr, err := netip.ParseAddr(host)
	return err == nil && addr.Is6()
}

// pyUnquote is Python's urllib.parse.unquote: "%XX" escapes inside each run
// of ASCII text become bytes decoded as UTF-8 with replacement; malformed
// escapes and non-ASCII text are kept as they are.
func pyUnquote(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		n := 0
		for n < len(s) && s[n] < utf8.RuneSelf {
			n++
		}
		if n == 0 {
			for n < len(s) && s[n] >= utf8.RuneSelf {
				n++
			}
			b.WriteString(s[:n])
		} else {
			b.WriteString(bytesDecodeReplace(percentDecode(s[:n])))
		}
		s = s[n:]
	}
	return b.String()
}

func percentDecode(s string) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isURLHexDigit(s[i+1]) && isURLHexDigit(s[i+2]) {
			out = append(out, urlUnhex(s[i+1])<<4|urlUnhex(s[i+2]))
			i += 2
			continue
		}
		out = append(out, s[i])
	}
	return out
}

func isURLHexDigit(c byte) bool {
	return (c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'f')
}

func urlUnhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c | 0x20 - 'a' + 10
}

// bytesDecodeReplace is bytes.decode("utf-8", errors="replace"): each
// maximal ill-formed subsequence becomes one U+FFFD.
func bytesDecodeReplace(p []byte) string { return sandbox.DecodeUTF8Replace(p) }

// pyParseQSLValues returns the values of parse_qsl(query,
// keep_blank_values=True): "&"-separated pairs, a pair without "=" has an
// empty value, "+" means a space, then each value is unquoted.
func pyParseQSLValues(query string) []string {
	var out []string
	if query == "" {
		return out
	}
	for _, pair := range strings.Split(query, "&") {
		if pair == "" {
			continue
		}
		_, value, _ := strings.Cut(pair, "=")
		out = append(out, pyUnquote(strings.ReplaceAll(value, "+", " ")))
	}
	return out
}

// trimPySpace is Python's str.strip(): Unicode white space plus the ASCII
// information separators U+001C..U+001F.
func trimPySpace(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return (r >= 0x1c && r <= 0x1f) || unicode.IsSpace(r)
	})
}

// pyTruthy is Python's truth value of a decoded JSON value.
func pyTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0
	case int:
		return x != 0
	case int64:
		return x != 0
	case string:
		return x != ""
	case map[string]any:
		return len(x) > 0
	case []any:
		return len(x) > 0
	}
	return true
}
