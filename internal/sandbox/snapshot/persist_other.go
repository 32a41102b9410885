//go:build !linux

package snapshot

import (
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// Persist needs Linux's openat no-follow walk.
func Persist(context.Context, string, []string, string, io.Writer) (Summary, error) {
	return Summary{}, fmt.Errorf("workspace snapshots are not supported on %s", runtime.GOOS)
}

// Extract needs Linux's openat no-follow resolution.
func Extract(context.Context, string, io.Reader, bool, sandbox.OutputLimits) (Summary, error) {
	return Summary{}, fmt.Errorf("workspace restores are not supported on %s", runtime.GOOS)
}
