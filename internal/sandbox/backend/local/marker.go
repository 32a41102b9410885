package local

import (
	"errors"
	"fmt"
)

// MarkerAttr is the extended attribute on a local workspace's root
// directory that makes the directory a workspace: its value is the JSON of
// a Marker. It lives on the directory itself, not in a file below it, so the
// agent never sees it in the tree, it moves with the directory, and it goes
// when the directory is deleted. A directory without it is never adopted,
// written into or removed as a workspace.
const MarkerAttr = "user.sandbox.workspace"

// MaxMarkerSize bounds the JSON of a Marker: extended attribute values of
// common filesystems (ext4 keeps all of a file's attributes in one block)
// are limited to a few KiB.
const MaxMarkerSize = 3584

// Marker is what a local workspace root carries.
type Marker struct {
	// ID is the workspace's UUID.
	ID string `json:"id"`
	// Environment is the workspace environment, added to every command.
	Environment map[string]string `json:"environment,omitempty"`
	// Lifetime, OnExpiry and ExpiresAt (RFC 3339, UTC) record the
	// workspace's expiry; nothing on the host enforces it (the plan after
	// ExpiresAt replaces the workspace).
	Lifetime  string `json:"lifetime,omitempty"`
	OnExpiry  string `json:"on_expiry,omitempty"`
	ExpiresAt string `json:"expires_at,omitempty"`
}

// ErrNoMarker is wrapped when a directory carries no workspace marker.
var ErrNoMarker = errors.New("the directory carries no workspace marker")

// ClaimedError is returned by ClaimMarker when the directory already carries
// the marker of a workspace (another claim won, or it is a workspace).
type ClaimedError struct {
	Root string
	ID   string
}

func (e *ClaimedError) Error() string {
	return fmt.Sprintf("directory %s is already workspace %s: two workspaces cannot share a root", e.Root, e.ID)
}
