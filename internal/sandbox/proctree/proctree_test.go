package proctree

import (
	"strings"
	"testing"
)

func TestDescribe(t *testing.T) {
	var procs []Proc
	for i := range 12 {
		procs = append(procs, Proc{Pid: 100 + i, Name: "sleep"})
	}
	for _, c := range []struct {
		count int
		procs []Proc
		want  string
	}{
		{1, procs[:1], "1 process (100 sleep)"},
		{3, nil, "3 processes"},
		{12, procs, "12 processes (100 sleep, 101 sleep, 102 sleep, 103 sleep, 104 sleep, 105 sleep, 106 sleep, 107 sleep, 108 sleep, 109 sleep and 2 more)"},
		{0, procs[:2], "2 processes (100 sleep, 101 sleep)"},
	} {
		if got := Describe(c.count, c.procs); got != c.want {
			t.Errorf("Describe(%d, %d procs) = %q, want %q", c.count, len(c.procs), got, c.want)
		}
	}
}

// A process names itself: its name is bounded and printable.
func TestClean(t *testing.T) {
	if got := Clean("evil\x1b[2J\n"); got != "evil?[2J" {
		t.Errorf("Clean = %q", got)
	}
	if got := Clean(strings.Repeat("x", 100)); len(got) != 32 {
		t.Errorf("Clean kept %d bytes", len(got))
	}
}
