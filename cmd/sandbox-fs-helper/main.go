// Command sandbox-fs-helper is the in-container file helper of the Docker
// backend as a small standalone binary (see package fshelper). The provider
// binary serves the same helper itself when it is statically linked; this
// command exists for builds where it is not (a test binary built with cgo,
// a provider built for another OS): build it with
//
//	CGO_ENABLED=0 GOOS=linux go build -o sandbox-fs-helper ./cmd/sandbox-fs-helper
//
// and point SANDBOX_FS_HELPER at the result.
package main

import (
	"os"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
)

func main() {
	os.Exit(fshelper.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
