package workspace

import (
	"context"
	"fmt"
	"strconv"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// CheckOwner checks, without touching any workspace, that owner can own
// files in the workspace id: a local workspace lives on this machine, so
// only root can give its files to another user; a container's users are
// its own (an unknown one fails the chown naming it). An id that does not
// parse is left to its own validator.
func CheckOwner(id, owner string) error {
	if !ValidID(id) {
		return nil
	}
	ref, _ := ParseID(id)
	return CheckKindOwner(ref.Kind, owner)
}

// CheckKindOwner is CheckOwner for a workspace of the kind named.
func CheckKindOwner(kind, owner string) error {
	if f, ok := kindForms[kind]; ok && f.checkOwner != nil {
		return f.checkOwner(owner)
	}
	return nil
}

// DefaultRootOwner is the owner of a new workspace's root when none is
// configured: a local workspace's belongs to the user the provider runs as;
// a container's to its first user, or root when it has none.
func DefaultRootOwner(kind string, users []sandbox.User) string {
	if f, ok := kindForms[kind]; ok && f.rootOwner != nil {
		return f.rootOwner(users)
	}
	if len(users) > 0 {
		return users[0].Name
	}
	return "root"
}

// RootOwner reads who owns the workspace root: owner when it names the
// same user (by name or by uid), else the owner's name (its uid when the
// workspace has no name for it). It only reads.
func (w *Workspace) RootOwner(ctx context.Context, owner string) (string, error) {
	info, err := w.Backend.Stat(ctx, ".")
	if err != nil {
		return "", err
	}
	return SameOwner(owner, info.Owner, info.Uid), nil
}

// DefaultEntryOwner is the owner an entry with none configured takes: the
// owner of the workspace root now (a name, or a decimal uid without one),
// so that the user the root was given to owns what is put in it. It is ""
// (no chown) in a local workspace of a provider not running as root, whose
// files are that user's already and whose root may belong to someone it
// cannot give files to. It only reads.
func (w *Workspace) DefaultEntryOwner(ctx context.Context) (string, error) {
	if f, ok := kindForms[w.Kind]; ok && f.entryOwnerDefault != nil && !f.entryOwnerDefault() {
		return "", nil
	}
	info, err := w.Backend.Stat(ctx, ".")
	if err != nil {
		return "", fmt.Errorf("reading the owner of the workspace root %s: %w", w.Root, err)
	}
	return SameOwner("", info.Owner, info.Uid), nil
}

// SetRootOwner chowns the workspace root (not what is below it) to owner.
func (w *Workspace) SetRootOwner(ctx context.Context, owner string) error {
	if err := w.Backend.Chown(ctx, ".", owner, "", false); err != nil {
		return fmt.Errorf("giving the workspace root %s to %s: %w", w.Root, owner, err)
	}
	return nil
}

// SameOwner returns want when it names the observed user (its name, or
// its decimal id), else the observed name: the value to record, so that a
// configured "1000" and an observed "agent" with uid 1000 are no change.
func SameOwner(want, name string, id int) string {
	if want != "" && (want == name || want == strconv.Itoa(id)) {
		return want
	}
	return name
}
