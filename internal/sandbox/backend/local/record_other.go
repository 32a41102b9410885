//go:build !linux

package local

import "context"

// ReadRecord is not supported on this system.
func (b *Backend) ReadRecord(context.Context, string, int64) ([]byte, error) {
	return nil, errUnsupported
}

// WriteRecord is not supported on this system.
func (b *Backend) WriteRecord(context.Context, string, []byte) error { return errUnsupported }
