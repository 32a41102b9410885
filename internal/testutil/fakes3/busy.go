package fakes3

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Busy makes unmounts fail as they do while a mount is in use: wrappers
// of fusermount3 and umount first on PATH (for this process and what it
// starts) answer "Device or resource busy" to the non-lazy unmounts of the
// mount points given to Set, and run the real tools otherwise.
type Busy struct{ dir string }

// BusyUnmounts installs the wrappers for the rest of the test (t.Setenv:
// not for parallel tests).
func BusyUnmounts(t *testing.T) *Busy {
	t.Helper()
	dir := t.TempDir()
	for _, tool := range []string{"fusermount3", "umount"} {
		real, err := exec.LookPath(tool)
		if err != nil {
			unavailable(t, tool+" not found in PATH")
			return nil
		}
		lazy := "-uz"
		if tool == "umount" {
			lazy = "-l"
		}
		script := fmt.Sprintf(`#!/bin/sh
state=%q
lazy=
mp=
for a in "$@"; do
  case "$a" in %s) lazy=1 ;; -*) ;; *) mp=$a ;; esac
done
key=$(printf '%%s' "$mp" | tr / _)
if [ -z "$lazy" ] && [ -f "$state/$key.limit" ]; then
  limit=$(cat "$state/$key.limit")
  n=$(cat "$state/$key.count" 2>/dev/null || echo 0)
  if [ "$limit" = -1 ] || [ "$n" -lt "$limit" ]; then
    echo $((n+1)) > "$state/$key.count"
    echo "%s: $mp: Device or resource busy" >&2
    exit 1
  fi
fi
exec %q "$@"
`, dir, lazy, tool, real)
		if err := os.WriteFile(filepath.Join(dir, tool), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return &Busy{dir: dir}
}

func (b *Busy) key(mountPoint string) string {
	return filepath.Join(b.dir, strings.ReplaceAll(filepath.Clean(mountPoint), "/", "_"))
}

// Set makes the next n non-lazy unmounts of mountPoint fail (each of
// fusermount3 and umount counts); n < 0: all of them. It restarts the
// count of Refused.
func (b *Busy) Set(t testing.TB, mountPoint string, n int) {
	t.Helper()
	_ = os.Remove(b.key(mountPoint) + ".count")
	if err := os.WriteFile(b.key(mountPoint)+".limit", []byte(strconv.Itoa(n)), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Refused is how many unmounts of mountPoint failed since Set.
func (b *Busy) Refused(mountPoint string) int {
	raw, err := os.ReadFile(b.key(mountPoint) + ".count")
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	return n
}
