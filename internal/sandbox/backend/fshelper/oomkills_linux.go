package fshelper

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// oomKills reads the oom_kill counter of the container's memory cgroup:
// memory.events on cgroup v2, memory.oom_control on cgroup v1. A cgroup
// file that cannot be read (no memory controller, another runtime) counts
// as 0.
func oomKills() int64 {
	for _, p := range []string{"/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control"} {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "oom_kill "); ok {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				f.Close()
				return n
			}
		}
		f.Close()
	}
	return 0
}
