package backend

import (
	"errors"
	"strconv"
	"strings"
)

// ErrNotStarted is wrapped by a *StartError: the command never ran.
var ErrNotStarted = errors.New("the command could not start")

// StartError is a command that the runtime could not start: its working
// directory is missing, its user unknown, or its program not found or not
// executable (the runtime's exit 126 or 127 with its own message, never
// the program's). It is not the command's result, so an accepted exit
// code never covers it.
type StartError struct {
	// Attr is what was wrong: "working_dir", "user" or "command".
	Attr string
	// Value is that attribute's value: the workspace-relative working
	// directory, the user, or the program.
	Value string
	// Detail is the runtime's own message (one line, bounded), or "".
	Detail string
}

func (e *StartError) Error() string {
	var s string
	switch e.Attr {
	case "working_dir":
		s = "working_dir " + strconv.Quote(e.Value) + " does not exist in the workspace"
	case "user":
		s = "user " + strconv.Quote(e.Value) + " is not one of the workspace's users nor an account of the workspace"
	default:
		s = "the program " + strconv.Quote(e.Value) + " could not be started (not found, or not executable)"
	}
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	return s
}

func (e *StartError) Unwrap() error { return ErrNotStarted }

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
