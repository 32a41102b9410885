package local

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrMountInside is wrapped when a removal would descend into a mounted
// filesystem (a storage mount of the workspace): removing the files of a
// mounted bucket would delete remote data.
var ErrMountInside = errors.New("a filesystem is mounted inside the tree")

// mountPointsUnder lists the mount points at or below dir, read from
// /proc/self/mountinfo (missing on other systems: no mount points known).
func mountPointsUnder(dir string) ([]string, error) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	dir = filepath.Clean(dir)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real // mountinfo lists resolved paths
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		p := UnescapeMountField(f[4])
		if p == dir || strings.HasPrefix(p, dir+"/") {
			out = append(out, p)
		}
	}
	return out, nil
}

// checkNoMounts refuses a removal of dir (recursive) while anything is
// mounted at or below it.
func checkNoMounts(dir string) error {
	points, err := mountPointsUnder(dir)
	if err != nil {
		return err
	}
	if len(points) > 0 {
		return fmt.Errorf("%w: %s holds the mount point(s) %s; nothing was removed: unmount them first (destroy the "+
			"mount resources, or fusermount3 -u)", ErrMountInside, dir, strings.Join(points, ", "))
	}
	return nil
}

// UnescapeMountField decodes the \ooo escapes (space, tab, newline,
// backslash) the kernel uses in the path fields of /proc/mounts and
// mountinfo.
func UnescapeMountField(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
