package fshelper

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// killByEnv sends SIGKILL to every process (other than this one) whose
// environment holds the entry entry ("NAME=value"), as read from
// /proc/<pid>/environ, and returns how many it signalled. It repeats the
// scan until none is left (or a few rounds have passed), so a process
// forked while the first scan ran is caught too.
func killByEnv(entry string) (int, error) {
	if len(entry) <= len(ExecTokenEnv)+1 {
		return 0, errors.New("killenv: empty token")
	}
	want := []byte(entry)
	self := os.Getpid()
	killed := 0
	for round := 0; round < 5; round++ {
		pids, err := filepath.Glob("/proc/[0-9]*")
		if err != nil {
			return killed, err
		}
		found := 0
		for _, p := range pids {
			pid, err := strconv.Atoi(filepath.Base(p))
			if err != nil || pid == self {
				continue
			}
			env, err := os.ReadFile(filepath.Join(p, "environ"))
			if err != nil {
				continue // gone, or not ours to read
			}
			for _, kv := range bytes.Split(env, []byte{0}) {
				if bytes.Equal(kv, want) {
					if syscall.Kill(pid, syscall.SIGKILL) == nil {
						found++
					}
					break
				}
			}
		}
		killed += found
		if found == 0 {
			break
		}
	}
	return killed, nil
}
