//go:build linux

package fshelper

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/local"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/snapshot"
)

// persist writes the tar of the workspace root to stdout (OpPersist),
// leaving out the excluded paths (arg, a JSON list) and every mount point
// the container's mount table lists below the root. On failure the tar is
// cut short, the error goes to stderr and the exit status is 1.
func persist(root, arg string, stdout, stderr io.Writer) int {
	var exclude []string
	if arg != "" {
		if err := json.Unmarshal([]byte(arg), &exclude); err != nil {
			fmt.Fprintf(stderr, "%s: bad exclude list: %v\n", OpPersist, err)
			return 2
		}
	}
	points, err := local.MountPoints(root)
	if err == nil {
		_, err = snapshot.PersistRoot(context.Background(), root, exclude, points, "", stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// readOut copies the regular file rel to stdout (OpRead), at most limit
// bytes (arg); failures go to stderr with exit status 1.
func readOut(root, rel, arg string, stdout, stderr io.Writer) int {
	limit, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || limit < 0 {
		fmt.Fprintf(stderr, "%s: bad limit %q\n", OpRead, arg)
		return 2
	}
	if _, err := local.New(root).ReadFile(context.Background(), rel, stdout, limit); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}
