package fshelper

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

// OpProbe is a readiness probe of a service, run inside the workspace so
// that an image with no tools at all can be probed:
// `sandbox-fs-helper probe tcp <port>` connects to 127.0.0.1:<port>;
// `sandbox-fs-helper probe http <port> <path>` sends GET <path> there and
// wants a status from 200 to 399. Exit 0 means ready; 1 not ready (the
// reason on stderr); 2 a usage error. Each probe gives up after
// backend.ProbeTimeout.
const OpProbe = "probe"

func probe(args []string, stderr io.Writer) int {
	if len(args) < 2 || len(args) > 3 {
		fmt.Fprintf(stderr, "usage: %s probe tcp|http <port> [path]\n", HelperName)
		return 2
	}
	port, err := strconv.Atoi(args[1])
	if err != nil || port < 1 || port > 65535 {
		fmt.Fprintf(stderr, "%s probe: bad port %q\n", HelperName, args[1])
		return 2
	}
	path := "/"
	if len(args) == 3 {
		path = args[2]
	}
	if err := backend.ProbePort(context.Background(), args[0], port, path); err != nil {
		fmt.Fprintln(stderr, err)
		if strings.HasPrefix(err.Error(), "usage:") {
			return 2
		}
		return 1
	}
	return 0
}
