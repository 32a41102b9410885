// Package proctree finds and kills every process of one command run, the
// whole tree it started (new process groups and sessions included), by an
// environment variable each of them inherited, and names what it killed.
package proctree

import (
	"fmt"
	"strconv"
	"strings"
)

// TokenEnv is the environment variable a command run carries with a value
// unique to the run; its children inherit it.
const TokenEnv = "SANDBOX_EXEC_TOKEN"

// Proc is one process that was killed.
type Proc struct {
	Pid  int    `json:"pid"`
	Name string `json:"name"`
}

// String renders p as "1234 sleep".
func (p Proc) String() string { return strconv.Itoa(p.Pid) + " " + p.Name }

// maxShown bounds the processes Describe names.
const maxShown = 10

// Describe says what was killed, bounded: "3 processes (12 sh, 13 sleep,
// 14 sleep)", with "and N more" past ten. count may exceed len(procs) (a
// helper that only counts).
func Describe(count int, procs []Proc) string {
	if count < len(procs) {
		count = len(procs)
	}
	noun := "processes"
	if count == 1 {
		noun = "process"
	}
	if len(procs) == 0 {
		return fmt.Sprintf("%d %s", count, noun)
	}
	shown := make([]string, 0, min(len(procs), maxShown))
	for _, p := range procs[:min(len(procs), maxShown)] {
		shown = append(shown, p.String())
	}
	more := ""
	if count > len(shown) {
		more = fmt.Sprintf(" and %d more", count-len(shown))
	}
	return fmt.Sprintf("%d %s (%s%s)", count, noun, strings.Join(shown, ", "), more)
}

// Clean keeps a process name (untrusted: the process chose it) short
// and printable.
func Clean(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 32 {
		s = s[:32]
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '\uFFFD' {
			return '?'
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
}
