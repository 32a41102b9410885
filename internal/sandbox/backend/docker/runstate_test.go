package docker

import (
	"errors"
	"strings"
	"testing"

	"github.com/moby/moby/api/types/container"
)

// What a health check printed is shown bounded, with control characters
// escaped: it comes from inside the sandbox.
func TestUnhealthyBoundsTheCheckOutput(t *testing.T) {
	var logs []*container.HealthcheckResult
	for i := range 5 {
		logs = append(logs, &container.HealthcheckResult{ExitCode: i, Output: "run " + string(rune('0'+i))})
	}
	logs[4].Output = "\x1b[2Jcleared\u202eevil\r\nnext " + strings.Repeat("x", 10000)
	err := (&Backend{id: "0123456789abcdef"}).unhealthy("reported unhealthy", &container.Health{Log: logs})
	if !errors.Is(err, ErrUnhealthy) {
		t.Fatalf("error %v does not wrap ErrUnhealthy", err)
	}
	msg := err.Error()
	for _, want := range []string{"container 0123456789ab reported unhealthy", "exit 2: run 2", "exit 3: run 3",
		`exit 4: \u001b[2Jcleared\u202eevil\u000d next xxx`} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	for _, unwanted := range []string{"run 0", "run 1", "\x1b", "\u202e", "\r"} {
		if strings.Contains(msg, unwanted) {
			t.Errorf("error holds %q:\n%s", unwanted, msg)
		}
	}
	if len(msg) > 3*healthLogBytes+300 {
		t.Errorf("error is %d bytes, want at most about %d", len(msg), 3*healthLogBytes+300)
	}
}

func TestUnhealthyWithoutResults(t *testing.T) {
	msg := (&Backend{id: "abc"}).unhealthy("stopped before it was healthy", nil).Error()
	if !strings.Contains(msg, "no result of the check yet") {
		t.Errorf("got %q", msg)
	}
}
