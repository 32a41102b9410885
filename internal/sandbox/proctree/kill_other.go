//go:build !linux

package proctree

import "errors"

// KillByEnv needs /proc: elsewhere it kills nothing and says so.
func KillByEnv(string) ([]Proc, error) {
	return nil, errors.New("finding a command's processes by their environment needs Linux")
}
