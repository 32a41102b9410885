//go:build !linux

package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

// errUnsupported is returned by every path operation on systems other than
// Linux, where the no-follow resolution beneath the root is not available.
var errUnsupported = fmt.Errorf("local workspaces are not supported on %s (no-follow resolution beneath the root needs Linux openat2): %w", runtime.GOOS, errors.ErrUnsupported)

// Stat is not supported on this system.
func (b *Backend) Stat(context.Context, string) (backend.FileInfo, error) {
	return backend.FileInfo{}, errUnsupported
}

// MkdirAll is not supported on this system.
func (b *Backend) MkdirAll(context.Context, string, fs.FileMode) error { return errUnsupported }

// WriteFile is not supported on this system.
func (b *Backend) WriteFile(context.Context, string, io.Reader, fs.FileMode, string) (sandbox.WriteResult, error) {
	return sandbox.WriteResult{}, errUnsupported
}

// Chmod is not supported on this system.
func (b *Backend) Chmod(context.Context, string, fs.FileMode) error { return errUnsupported }

// Chgrp is not supported on this system.
func (b *Backend) Chgrp(context.Context, string, string) error { return errUnsupported }

// Chown is not supported on this system.
func (b *Backend) Chown(context.Context, string, string, string, bool) error { return errUnsupported }

// HashFile is not supported on this system.
func (b *Backend) HashFile(context.Context, string) (string, int64, error) {
	return "", 0, errUnsupported
}

// WalkFiles is not supported on this system.
func (b *Backend) WalkFiles(context.Context, string) ([]backend.TreeFile, error) {
	return nil, errUnsupported
}

// Remove is not supported on this system.
func (b *Backend) Remove(context.Context, string) error { return errUnsupported }

// RemoveTree is not supported on this system.
func (b *Backend) RemoveTree(context.Context, string, []string) (backend.RemoveReport, error) {
	return backend.RemoveReport{}, errUnsupported
}

// RemoveAll is not supported on this system.
func (b *Backend) RemoveAll(context.Context, string) error { return errUnsupported }
