package fakes3

import (
	"os"
	"os/exec"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// UnmountAllUnder unmounts every mount point below dir (deepest first,
// lazily when busy) and ends the rclone processes serving them. Tests whose
// mounts are made by the code under test call it from a cleanup, so that a
// failed test leaves nothing mounted and its temporary directory can be
// removed.
func UnmountAllUnder(t testing.TB, dir string) {
	t.Helper()
	b, err := os.ReadFile("/proc/mounts")
	if err != nil {
		t.Errorf("reading /proc/mounts: %v", err)
		return
	}
	prefix := strings.TrimSuffix(dir, "/") + "/"
	var points []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 {
			if p := unescapeMount(f[1]); strings.HasPrefix(p, prefix) {
				points = append(points, p)
			}
		}
	}
	sort.Slice(points, func(i, j int) bool { return len(points[i]) > len(points[j]) })
	for _, p := range points {
		if out, err := exec.Command("fusermount3", "-u", p).CombinedOutput(); err != nil {
			t.Logf("fusermount3 -u %s: %v: %s; unmounting lazily", p, err, out)
			_ = exec.Command("fusermount3", "-uz", p).Run()
		}
		for _, pid := range RclonePIDs(p) {
			_ = syscall.Kill(pid, syscall.SIGTERM)
			time.Sleep(100 * time.Millisecond)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
