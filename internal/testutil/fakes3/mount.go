package fakes3

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Mounted reports whether dir is a mount point of this process's mount
// namespace, and its filesystem type ("fuse.rclone" for an rclone mount).
func Mounted(dir string) (bool, string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return false, "", err
	}
	defer f.Close()
	dir = filepath.Clean(dir)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional...] - fstype source super
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 || unescapeMount(fields[4]) != dir {
			continue
		}
		fstype := ""
		for i, f := range fields {
			if f == "-" && i+1 < len(fields) {
				fstype = fields[i+1]
				break
			}
		}
		return true, fstype, nil
	}
	return false, "", sc.Err()
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space...).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
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

// CleanupMount makes sure, when the test ends, that nothing stays mounted
// on dir and that no rclone process still serves it, whether or not the
// test unmounted it: it unmounts with fusermount3 -u (lazily, -uz, when
// the mount is busy) and then ends any rclone process whose command line
// names dir. Register it before mounting, after creating dir, so that it
// runs before dir is removed.
func CleanupMount(t testing.TB, dir string) {
	t.Helper()
	t.Cleanup(func() {
		if ok, _, _ := Mounted(dir); ok {
			if out, err := exec.Command("fusermount3", "-u", dir).CombinedOutput(); err != nil {
				t.Logf("fusermount3 -u %s: %v: %s; unmounting lazily", dir, err, bytes.TrimSpace(out))
				if out, err := exec.Command("fusermount3", "-uz", dir).CombinedOutput(); err != nil {
					t.Errorf("fusermount3 -uz %s: %v: %s", dir, err, bytes.TrimSpace(out))
				}
			}
		}
		for _, pid := range RclonePIDs(dir) {
			if !waitExit(pid, 5*time.Second) {
				t.Logf("rclone (pid %d) still serves %s after unmount; ending it", pid, dir)
				_ = syscall.Kill(pid, syscall.SIGTERM)
				if !waitExit(pid, 5*time.Second) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		}
	})
}

// RclonePIDs lists the rclone processes (on this machine, in this PID
// namespace) whose arguments include dir: the daemons serving a mount of
// dir, or a plugin whose base directory it is.
func RclonePIDs(dir string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil || len(raw) == 0 {
			continue
		}
		argv := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
		if filepath.Base(argv[0]) != "rclone" {
			continue
		}
		for _, a := range argv[1:] {
			if filepath.Clean(a) == filepath.Clean(dir) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// waitExit waits up to d for pid to be gone (or a zombie); true if it is.
func waitExit(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return true
		}
		// pid (comm) state ...: the state follows the last ')'.
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}
