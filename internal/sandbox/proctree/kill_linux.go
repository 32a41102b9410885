//go:build linux

package proctree

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// KillByEnv sends SIGKILL to every process other than this one whose
// environment holds entry ("NAME=value"), as /proc/<pid>/environ shows it
// (only processes this one may read), and returns them with their names.
// It repeats the scan until none is left (or a few rounds have passed), so
// a process forked while a scan ran is caught too.
func KillByEnv(entry string) ([]Proc, error) {
	if len(entry) < 3 || !bytes.ContainsRune([]byte(entry), '=') || entry[len(entry)-1] == '=' {
		return nil, errors.New("killenv: empty token")
	}
	want := []byte(entry)
	self := os.Getpid()
	var killed []Proc
	done := map[int]bool{} // signalled already: dying, or a zombie
	for round := 0; round < 5; round++ {
		pids, err := filepath.Glob("/proc/[0-9]*")
		if err != nil {
			return killed, err
		}
		found := 0
		for _, p := range pids {
			pid, err := strconv.Atoi(filepath.Base(p))
			if err != nil || pid == self || done[pid] {
				continue
			}
			env, err := os.ReadFile(filepath.Join(p, "environ"))
			if err != nil {
				continue // gone, or not ours to read
			}
			for _, kv := range bytes.Split(env, []byte{0}) {
				if bytes.Equal(kv, want) {
					comm, _ := os.ReadFile(filepath.Join(p, "comm"))
					if syscall.Kill(pid, syscall.SIGKILL) == nil {
						done[pid] = true
						found++
						killed = append(killed, Proc{Pid: pid, Name: Clean(string(comm))})
					}
					break
				}
			}
		}
		if found == 0 {
			break
		}
	}
	return killed, nil
}
