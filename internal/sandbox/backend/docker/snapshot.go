package docker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/fshelper"
)

// Persist streams the tar of the workspace root to w, as the file helper
// writes it inside the container (fshelper.OpPersist): the excluded paths
// and every mount point below the root are left out, no symlink is
// followed, and nothing is held in memory on either side. The Docker
// archive API is not used: it would not see mounts made inside the
// container, nor leave them out.
func (b *Backend) Persist(ctx context.Context, exclude []string, w io.Writer) error {
	arg, err := json.Marshal(exclude)
	if err != nil {
		return err
	}
	helperCalls.Add(1)
	p, err := b.d.ensureHelper(ctx, b.id)
	if err != nil {
		return err
	}
	res, err := b.d.run(ctx, b.id, execSpec{argv: []string{p, fshelper.OpPersist, b.root, ".", string(arg)}, user: "0:0",
		out: w, limit: 64 << 10})
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("persisting the workspace in container %s failed: %s", short(b.id), bytes.TrimSpace(res.Stderr))
	}
	return nil
}

// Hydrate extracts the tar on r below the workspace root with the file
// helper (fshelper.OpHydrate), which checks every member again as it
// goes. It returns the number of regular files written.
func (b *Backend) Hydrate(ctx context.Context, r io.Reader) (int, error) {
	resp, err := b.helper(ctx, fshelper.OpHydrate, ".", "", r)
	return int(resp.Size), err
}
