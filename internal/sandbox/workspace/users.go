package workspace

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/local"
)

// ErrUnknownUser is a user name the workspace has no account for.
var ErrUnknownUser = errors.New("unknown user")

// ErrAccountsUnknown is a workspace whose accounts cannot be read without
// running something in it.
var ErrAccountsUnknown = errors.New("the workspace's accounts cannot be read without running a process in it")

// CheckUser checks, only reading, that the workspace has an account named
// name: root and decimal uids always pass; a Docker workspace's are the
// accounts of its container's /etc/passwd (the image's and its users),
// read without starting anything; a local workspace's are this machine's.
// Others give ErrAccountsUnknown; an unknown name, ErrUnknownUser.
func (w *Workspace) CheckUser(ctx context.Context, name string) error {
	if name == "root" {
		return nil
	}
	if _, err := strconv.ParseUint(name, 10, 31); err == nil {
		return nil
	}
	switch b := w.Backend.(type) {
	case *docker.Backend:
		names, err := b.UserNames(ctx)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrAccountsUnknown, err)
		}
		if !names[name] {
			return fmt.Errorf("%w %q: container %s has no such account in /etc/passwd (neither the image nor the "+
				"workspace's users give it)", ErrUnknownUser, name, b.ContainerID())
		}
		return nil
	case *local.Backend:
		if !local.KnownUser(name) {
			return fmt.Errorf("%w %q: this machine has no such account", ErrUnknownUser, name)
		}
		return nil
	}
	return ErrAccountsUnknown
}
