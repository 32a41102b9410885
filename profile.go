package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
)

// softMemoryLimit is the heap size (48 MiB) past which the garbage collector
// works harder, unless GOMEMLIMIT says otherwise: a plan of a 10,000-file
// tree holds several copies of its maps at once, and without a limit the
// collector's target (gcPercent) would let the heap grow to five times what
// is live. With it, the provider's peak resident memory for that tree stays
// near 80 MiB, the binary's own pages included.
const softMemoryLimit = 48 << 20

// gcPercent is the garbage collector's target (GOGC) unless GOGC says
// otherwise. A request allocates much and keeps little (the framework
// rebuilds its values per request), so with the default of 100 a provider
// with a small heap collects every few requests; at 400, a no-op plan of 200
// sandbox_file takes a quarter less provider CPU. softMemoryLimit still
// bounds a large heap, whichever is reached first.
const gcPercent = 400

// limitMemory sets the soft memory limit and the collector's target.
func limitMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softMemoryLimit)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}

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
