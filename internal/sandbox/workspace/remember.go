package workspace

import (
	"context"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

// writtenRecorder is a backend that records the digests of the files it
// wrote, once the provider has made its last change to them (the local
// backend), so that the next plan stats them instead of reading them.
type writtenRecorder interface {
	RememberWritten(ctx context.Context, rel string)
}

// rememberWritten records what b wrote at or below rel, when b can.
func rememberWritten(ctx context.Context, b backend.Backend, rel string) {
	if r, ok := b.(writtenRecorder); ok {
		r.RememberWritten(ctx, rel)
	}
}
