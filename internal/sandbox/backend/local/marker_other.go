//go:build !linux

package local

// ReadMarker is not supported on this system.
func ReadMarker(string) (Marker, error) { return Marker{}, errUnsupported }

// ClaimMarker is not supported on this system.
func ClaimMarker(string, Marker) error { return errUnsupported }

// UpdateMarker is not supported on this system.
func UpdateMarker(string, Marker) error { return errUnsupported }
