package backend

import (
	"strings"
)

// maxStartDetail bounds the runtime message a StartError keeps.
const maxStartDetail = 300

// StartDetail makes an untrusted runtime message fit a StartError: its
// first line, printable, bounded.
func StartDetail(msg string) string {
	msg, _, _ = strings.Cut(strings.TrimSpace(msg), "\n")
	msg = strings.TrimSpace(msg)
	if len(msg) > maxStartDetail {
		msg = msg[:maxStartDetail] + "..."
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, strings.ToValidUTF8(msg, "?"))
}
