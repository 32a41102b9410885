package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
)

// startProfile writes a CPU profile of this process to
// $SANDBOX_CPU_PROFILE_DIR/cpu-<pid>.pprof when that variable names a
// directory (Terraform starts the provider several times per command, so
// each process gets its own file), and a heap profile beside it on stop.
// The returned function stops profiling; it does nothing when the variable
// is unset.
func startProfile() func() {
	dir := os.Getenv("SANDBOX_CPU_PROFILE_DIR")
	if dir == "" {
		return func() {}
	}
	name := filepath.Join(dir, fmt.Sprintf("cpu-%d.pprof", os.Getpid()))
	f, err := os.Create(name) //nolint:gosec // a path the user chose for profiling
	if err != nil {
		fmt.Fprintf(os.Stderr, "profile: %v\n", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintf(os.Stderr, "profile: %v\n", err)
		_ = f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
		if h, err := os.Create(filepath.Join(dir, fmt.Sprintf("heap-%d.pprof", os.Getpid()))); err == nil { //nolint:gosec // as above
			_ = pprof.Lookup("allocs").WriteTo(h, 0)
			_ = h.Close()
		}
	}
}
