package docker

import (
	"archive/tar"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/moby/moby/client"
)

// maxPasswd bounds the /etc/passwd read from a container.
const maxPasswd = 1 << 20

// UserNames returns the account names of the container's /etc/passwd (the
// image's accounts and the workspace's users), read through the daemon's
// archive API: nothing is started, run or written, and the container need
// not be running. What comes out of the container is untrusted: only a
// regular file of at most 1 MiB is read, within 30 seconds.
func (b *Backend) UserNames(ctx context.Context) (map[string]bool, error) {
	cli, err := b.d.api()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := cli.CopyFromContainer(ctx, b.id, client.CopyFromContainerOptions{SourcePath: "/etc/passwd"})
	if err != nil {
		return nil, fmt.Errorf("reading /etc/passwd of container %s: %w", b.id, err)
	}
	defer res.Content.Close()
	tr := tar.NewReader(io.LimitReader(res.Content, maxPasswd+64<<10))
	h, err := tr.Next()
	if err != nil {
		return nil, fmt.Errorf("reading /etc/passwd of container %s: %w", b.id, err)
	}
	if h.Typeflag != tar.TypeReg || h.Size > maxPasswd {
		return nil, fmt.Errorf("/etc/passwd of container %s is not a regular file of at most %d bytes", b.id, maxPasswd)
	}
	data, err := io.ReadAll(io.LimitReader(tr, maxPasswd))
	if err != nil {
		return nil, fmt.Errorf("reading /etc/passwd of container %s: %w", b.id, err)
	}
	names := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if n, _, ok := strings.Cut(line, ":"); ok && n != "" {
			names[n] = true
		}
	}
	return names, nil
}
