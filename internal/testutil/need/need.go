// Package need is how tests say that something they need is missing: a
// skip with the reason on a developer machine, a failure under CI=true,
// where every tool the suite needs must be there.
package need

import (
	"os"
	"os/exec"
	"testing"
)

// Unavailable skips t saying why, or fails it when CI=true.
func Unavailable(t testing.TB, what, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s cannot run (CI=true makes this a failure): %s", what, why)
	}
	t.Skipf("%s skipped: %s", what, why)
}

// Tools makes sure every named program is on PATH.
func Tools(t testing.TB, what string, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			Unavailable(t, what, tool+" is not installed: "+err.Error())
		}
	}
}
