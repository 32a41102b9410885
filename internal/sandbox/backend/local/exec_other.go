//go:build !unix

package local

import (
	"context"
	"errors"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

// Exec is not supported on this operating system.
func (b *Backend) Exec(context.Context, backend.ExecRequest) (sandbox.ExecResult, error) {
	return sandbox.ExecResult{}, errors.ErrUnsupported
}
