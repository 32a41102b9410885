package docker

import (
	"context"
	"fmt"

	cerrdefs "github.com/containerd/errdefs"
)

// ImagePresent reports whether the daemon holds image, without pulling
// anything: a plan may ask.
func (d *Daemon) ImagePresent(ctx context.Context, image string) (bool, error) {
	cli, err := d.api()
	if err != nil {
		return false, err
	}
	_, err = cli.ImageInspect(ctx, image)
	switch {
	case err == nil:
		return true, nil
	case cerrdefs.IsNotFound(err):
		return false, nil
	}
	return false, fmt.Errorf("inspecting image %s: %w", image, err)
}
