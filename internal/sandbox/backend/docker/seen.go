package docker

import (
	"context"
	"sync/atomic"

	"github.com/moby/moby/api/types/container"
)

// A Backend opened from a lookup keeps the container as the lookup saw it,
// so the rest of one operation (describing the container, its endpoints,
// its secret environment) does not inspect it again; whatever changes the
// container (starting it, updating its limits or networks) forgets it, and
// the next read asks the daemon.
type seenContainer struct {
	p atomic.Pointer[container.InspectResponse]
}

// OpenFound returns the Backend of the container f, found by Lookup.
func (d *Daemon) OpenFound(f Found) *Backend {
	b := d.Open(f.ID, f.Root)
	if f.seen != nil {
		b.seen.p.Store(f.seen)
	}
	return b
}

// inspect is Daemon.inspect of b's container, answered from what the lookup
// that opened b saw when nothing has changed the container since.
func (b *Backend) inspect(ctx context.Context) (container.InspectResponse, bool, error) {
	if c := b.seen.p.Load(); c != nil {
		return *c, true, nil
	}
	return b.d.inspect(ctx, b.id)
}

// changed forgets what the lookup saw: b's container was just changed.
func (b *Backend) changed() {
	b.seen.p.Store(nil)
	b.d.reads.Changed()
}
