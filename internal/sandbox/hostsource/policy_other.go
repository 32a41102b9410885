//go:build !linux

package hostsource

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/checksum"
)

// errHostSourceUnsupported is the cause of every host source read on a
// system without the pinned no-follow walk this package relies on.
var errHostSourceUnsupported = fmt.Errorf("reading host sources with a pinned no-follow walk is not supported on %s: %w", runtime.GOOS, errors.ErrUnsupported)

func openPinned(t *hostTarget, _ bool) (*os.File, error) {
	f := fault("", "", errHostSourceUnsupported)
	f.ctx["os"] = runtime.GOOS
	return nil, f
}

func (p Policy) scanTree(_ context.Context, t *hostTarget) (checksum.TreeDigest, error) {
	_, err := openPinned(t, true)
	return checksum.TreeDigest{}, err
}

func (p Policy) visitTree(_ context.Context, t *hostTarget, _ func(TreeVisit) error) (checksum.TreeDigest, error) {
	_, err := openPinned(t, true)
	return checksum.TreeDigest{}, err
}

// checkLinks has nothing to check where no source can be opened.
func (p Policy) checkLinks(os.FileInfo, string) error { return nil }

func digestOpened(ctx context.Context, f *os.File, _ int64, want checksum.DigestSet) (checksum.FileDigest, error) {
	return checksum.DigestReaderWith(ctx, f, want)
}
