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

// ForkSummary is what a fork copied (Linux only).
type ForkSummary struct {
	Files, Dirs, Links          int
	Bytes                       int64
	Reflinked, Ranged, Streamed int
}

// Method names how the files were copied.
func (ForkSummary) Method() string { return "none" }

// Fork needs Linux's openat no-follow walk.
func Fork(context.Context, string, string, []string, []string, sandbox.OutputLimits) (ForkSummary, error) {
	return ForkSummary{}, fmt.Errorf("workspace forks are not supported on %s", runtime.GOOS)
}
