package local

import (
	"context"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

// Probe probes a port on the host, where a local workspace's processes
// listen (see backend.Prober).
func (b *Backend) Probe(ctx context.Context, kind string, port int, path string) error {
	return backend.ProbePort(ctx, kind, port, path)
}
