//go:build !unix

package local

import (
	"context"
	"errors"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// Exec is not supported on this operating system.
func (b *Backend) Exec(context.Context, sandbox.ExecRequest) (sandbox.ExecResult, error) {
	return sandbox.ExecResult{}, errors.ErrUnsupported
}
