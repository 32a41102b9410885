package docker

import (
	"context"
	"fmt"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
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

// ensureImage applies the pull policy. Errors reported inside the pull
// stream (unknown tag, denied access) are returned, not dropped.
func (d *Daemon) ensureImage(ctx context.Context, image, policy string) error {
	cli, err := d.api()
	if err != nil {
		return err
	}
	if policy != PullAlways {
		_, err := cli.ImageInspect(ctx, image)
		switch {
		case err == nil:
			return nil
		case !cerrdefs.IsNotFound(err):
			return fmt.Errorf("inspecting image %s: %w", image, err)
		case policy == PullNever:
			return fmt.Errorf("image %s is not present on the Docker daemon and pull_policy is %q", image, PullNever)
		}
	}
	resp, err := cli.ImagePull(ctx, image, client.ImagePullOptions{})
	if err != nil {
		return fmt.Errorf("pulling image %s: %w", image, err)
	}
	if err := resp.Wait(ctx); err != nil {
		return fmt.Errorf("pulling image %s: %w", image, err)
	}
	return nil
}
