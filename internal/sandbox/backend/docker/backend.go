package docker

import (
	"context"
	"fmt"

	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/incontainer"
)

// Kind is the value returned by Backend.Kind.
const Kind = "docker"

// Backend is a workspace inside one container. Every file operation is one
// `docker exec` of the file helper (see package incontainer).
type Backend struct {
	*incontainer.Workspace
	d    *Daemon
	id   string
	seen seenContainer
}

var (
	_ backend.Backend     = (*Backend)(nil)
	_ backend.BatchWriter = (*Backend)(nil)
)

// Kind returns "docker".
func (b *Backend) Kind() string { return Kind }

// ContainerID returns the full id of the container.
func (b *Backend) ContainerID() string { return b.id }

// Exists reports whether the container still exists, running or not; a
// removed one gives (false, nil) so that the workspace is planned for
// re-creation. It never starts anything (see Start).
func (b *Backend) Exists(ctx context.Context) (bool, error) {
	_, ok, err := b.d.inspect(ctx, b.id)
	return ok, err
}

// Start starts a stopped container, or unpauses a paused one.
func (b *Backend) Start(ctx context.Context) error {
	defer b.changed()
	c, ok, err := b.d.inspect(ctx, b.id)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("container %s no longer exists", short(b.id))
	}
	cli, err := b.d.api()
	if err != nil {
		return err
	}
	switch {
	case c.State != nil && c.State.Paused:
		if _, err := cli.ContainerUnpause(ctx, b.id, client.ContainerUnpauseOptions{}); err != nil {
			return fmt.Errorf("unpausing container %s: %w", short(b.id), err)
		}
	case c.State == nil || !c.State.Running:
		if _, err := cli.ContainerStart(ctx, b.id, client.ContainerStartOptions{}); err != nil {
			return fmt.Errorf("starting stopped container %s: %w", short(b.id), err)
		}
	}
	return nil
}

// StartedAt returns when the container was last started, as the daemon
// reports it (RFC 3339 with nanoseconds), or "" when it cannot be read.
func (b *Backend) StartedAt(ctx context.Context) string {
	c, ok, err := b.inspect(ctx)
	if err != nil || !ok || c.State == nil {
		return ""
	}
	return c.State.StartedAt
}
