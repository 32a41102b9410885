package docker

import (
	"context"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/incontainer"
)

// EnsureHelperVolume fills the helper volume of h as a container creation
// does, for the tests of package docker_test.
func (d *Daemon) EnsureHelperVolume(ctx context.Context, image string, h incontainer.Helper) error {
	return d.ensureHelperVolume(ctx, image, h)
}

// SetHelperFillStale sets the age past which a filling container is taken
// for an abandoned one, until the test ends.
func SetHelperFillStale(d time.Duration, cleanup func(func())) {
	old := helperFillStale
	helperFillStale = d
	cleanup(func() { helperFillStale = old })
}
