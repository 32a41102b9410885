package local

// MountPoints lists the mount points at or below dir as the mount table
// reports them (none on systems without /proc/self/mountinfo).
func MountPoints(dir string) ([]string, error) { return mountPointsUnder(dir) }
