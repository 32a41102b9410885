//go:build !linux

package fshelper

import (
	"fmt"
	"io"
	"runtime"
)

// Main is not available outside Linux: the helper runs inside Linux
// containers only. It prints why and returns 2.
func Main(_ []string, _ io.Reader, _, stderr io.Writer) int {
	fmt.Fprintf(stderr, "%s runs inside Linux containers only, not on %s\n", HelperName, runtime.GOOS)
	return 2
}
