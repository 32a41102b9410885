package local

import (
	"encoding/json"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// openRootDir opens root itself, refusing a symlink in its place.
func openRootDir(root string) (*fd, error) {
	n, err := openatRetry(unix.AT_FDCWD, root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("workspace root %s: %w", root, err)
	}
	return newFd(n), nil
}

// ReadMarker returns the marker root carries; an error wrapping ErrNoMarker
// when it has none. It only reads.
func ReadMarker(root string) (Marker, error) {
	d, err := openRootDir(root)
	if err != nil {
		return Marker{}, err
	}
	defer d.Close()
	return readMarkerFd(d, root)
}

func readMarkerFd(d *fd, root string) (Marker, error) {
	buf := make([]byte, MaxMarkerSize+512)
	n, err := unix.Fgetxattr(d.n(), MarkerAttr, buf)
	switch {
	case errors.Is(err, unix.ENODATA):
		return Marker{}, fmt.Errorf("%s: %w", root, ErrNoMarker)
	case errors.Is(err, unix.ENOTSUP):
		return Marker{}, fmt.Errorf("%s: %w (its filesystem has no user extended attributes)", root, ErrNoMarker)
	case err != nil:
		return Marker{}, fmt.Errorf("reading the workspace marker of %s: %w", root, err)
	}
	var m Marker
	if err := json.Unmarshal(buf[:n], &m); err != nil || m.ID == "" {
		return Marker{}, fmt.Errorf("%s: %w (attribute %s does not hold a workspace marker)", root, ErrNoMarker, MarkerAttr)
	}
	return m, nil
}

// ClaimMarker puts m on root, which must exist and carry no marker yet. The
// claim is atomic (the attribute is created exclusively): of two claims of
// one directory exactly one wins, and the loser gets a *ClaimedError.
func ClaimMarker(root string, m Marker) error {
	return setMarker(root, m, unix.XATTR_CREATE)
}

// UpdateMarker replaces the marker of root, which must already be m.ID's.
func UpdateMarker(root string, m Marker) error {
	d, err := openRootDir(root)
	if err != nil {
		return err
	}
	defer d.Close()
	cur, err := readMarkerFd(d, root)
	if err != nil {
		return err
	}
	if cur.ID != m.ID {
		return &ClaimedError{Root: root, ID: cur.ID}
	}
	return setMarkerFd(d, root, m, unix.XATTR_REPLACE)
}

func setMarker(root string, m Marker, flags int) error {
	d, err := openRootDir(root)
	if err != nil {
		return err
	}
	defer d.Close()
	return setMarkerFd(d, root, m, flags)
}

func setMarkerFd(d *fd, root string, m Marker, flags int) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if len(data) > MaxMarkerSize {
		return fmt.Errorf("the workspace marker of %s would be %d bytes; at most %d fit (shorten the environment of this local workspace)", root, len(data), MaxMarkerSize)
	}
	err = unix.Fsetxattr(d.n(), MarkerAttr, data, flags)
	switch {
	case errors.Is(err, unix.EEXIST):
		cur, rerr := readMarkerFd(d, root)
		if rerr != nil {
			return fmt.Errorf("claiming %s as a workspace: %w", root, rerr)
		}
		return &ClaimedError{Root: root, ID: cur.ID}
	case errors.Is(err, unix.ENOTSUP):
		return fmt.Errorf("workspace root %s is on a filesystem without user extended attributes, which mark a directory as a workspace; choose a root on ext4, xfs, btrfs or tmpfs: %w", root, err)
	case err != nil:
		return fmt.Errorf("writing the workspace marker of %s: %w", root, err)
	}
	return nil
}
