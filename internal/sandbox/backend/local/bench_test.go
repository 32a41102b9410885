//go:build linux

package local_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/local"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/checksum"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/hostsource"
)

// Benchmark data shape: a tree of benchTreeFiles files (20 top directories
// × 10 subdirectories × 50 files, 1 B–40 KiB each, about 200 MB in all) and
// one file of benchBigBytes. Content is pseudo-random from fixed seeds, so
// every run (and every machine) copies the same bytes.
const (
	benchTreeFiles = 20 * 10 * 50
	benchMaxFile   = 40 << 10
	benchBigBytes  = 1 << 30
	benchStamp     = ".sandbox-bench-v1"
)

var (
	benchOnce    sync.Once
	benchDir     string // holds tree/ and big/
	benchErr     error
	benchOwnsDir bool // a temporary directory TestMain removes
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchOwnsDir {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// benchData generates the benchmark data once per process, in
// $SANDBOX_BENCH_DIR when set (kept and reused across runs) or else in a
// temporary directory removed when the test binary exits.
func benchData(b *testing.B) string {
	b.Helper()
	benchOnce.Do(func() {
		benchDir = os.Getenv("SANDBOX_BENCH_DIR")
		if benchDir == "" {
			benchDir, benchErr = os.MkdirTemp("", "sandbox-bench-") //nolint:usetesting // shared by every benchmark of the run, removed by TestMain
			benchOwnsDir = true
		}
		if benchErr == nil {
			benchErr = generateBenchData(benchDir)
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDir
}

// generateBenchData writes dir/tree and dir/big/big.bin unless dir holds the
// stamp of a complete earlier generation.
func generateBenchData(dir string) error {
	stamp := filepath.Join(dir, benchStamp)
	if _, err := os.Stat(stamp); err == nil {
		return nil
	}
	if err := os.RemoveAll(filepath.Join(dir, "tree")); err != nil {
		return err
	}
	var seed [32]byte
	binary.LittleEndian.PutUint64(seed[:], 0x5eed)
	rng := rand.NewChaCha8(seed)
	sizes := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, benchMaxFile)
	for i := range benchTreeFiles {
		p := filepath.Join(dir, "tree", fmt.Sprintf("d%02d", i/500), fmt.Sprintf("s%02d", i/50%10), fmt.Sprintf("f%04d.bin", i))
		if i%50 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
		}
		chunk := buf[:1+sizes.IntN(benchMaxFile)]
		_, _ = rng.Read(chunk)
		if err := os.WriteFile(p, chunk, 0o644); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "big"), 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "big", "big.bin"))
	if err != nil {
		return err
	}
	chunk := make([]byte, 1<<20)
	for written := 0; written < benchBigBytes; written += len(chunk) {
		_, _ = rng.Read(chunk)
		if _, err := f.Write(chunk); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.WriteFile(stamp, nil, 0o644)
}

// copySource is what the provider does for a host directory copy: ScanDir
// at plan time, then at apply time every file is reopened by the pinned walk
// and streamed into the workspace with the planned checksum, at most
// LocalDirFiles at a time.
func copySource(ctx context.Context, p hostsource.Policy, src string, dst *local.Backend) (checksum.TreeDigest, time.Duration, error) {
	start := time.Now()
	td, err := p.ScanDir(ctx, src)
	if err != nil {
		return td, 0, err
	}
	scan := time.Since(start)
	jobs := make(chan checksum.TreeFile)
	errs := make(chan error, hostsource.DefaultLocalDirFiles)
	var wg sync.WaitGroup
	for range hostsource.DefaultLocalDirFiles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for tf := range jobs {
				f, err := p.OpenTreeFile(ctx, td, tf.Rel)
				if err == nil {
					_, err = dst.WriteFile(ctx, tf.Rel, f, tf.Perm, tf.SHA256)
					f.Close()
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for _, tf := range td.Files {
		jobs <- tf
	}
	close(jobs)
	wg.Wait()
	close(errs)
	return td, scan, <-errs
}

func benchCopy(b *testing.B, src string) {
	dir := benchData(b)
	p := hostsource.Policy{BaseDir: dir}
	ctx := context.Background()
	dstParent := b.TempDir()
	var scanned, total time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dst := local.New(filepath.Join(dstParent, fmt.Sprintf("ws%d", i)))
		if err := dst.Create(ctx); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		td, scan, err := copySource(ctx, p, src, dst)
		if err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		scanned += scan
		b.SetBytes(td.TotalBytes)
		b.StopTimer()
		if err := dst.Destroy(ctx); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if i == 0 {
			b.ReportMetric(float64(len(td.Files)), "files")
		}
	}
	b.StopTimer()
	bytes := float64(b.N) * float64(benchBytes(src))
	b.ReportMetric(bytes/1e6/scanned.Seconds(), "scan-MB/s")
	b.ReportMetric(bytes/1e6/(total-scanned).Seconds(), "copy-MB/s")
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		b.ReportMetric(float64(ru.Maxrss)/1024, "peak-MiB") // Maxrss is in KiB on Linux
	}
}

// benchBytes is the size of a benchmark source in bytes.
func benchBytes(src string) int64 {
	var n int64
	_ = filepath.Walk(filepath.Join(benchDir, src), func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// BenchmarkData only generates the benchmark data (or finds it in
// $SANDBOX_BENCH_DIR), so that make bench can time whole processes before
// these benchmarks run.
func BenchmarkData(b *testing.B) {
	for b.Loop() {
		benchData(b)
	}
}

// BenchmarkCopyTree scans and copies a 10,000-file, ~200 MB tree into a
// fresh local workspace. peak-MiB is the process's peak RSS so far (run the
// benchmark alone to attribute it).
func BenchmarkCopyTree(b *testing.B) { benchCopy(b, "tree") }

// BenchmarkCopyLargeFile scans and copies one 1 GiB file into a fresh local
// workspace.
func BenchmarkCopyLargeFile(b *testing.B) { benchCopy(b, "big") }
