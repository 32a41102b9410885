// Package benchdata generates the benchmark trees: the same bytes, file
// names and modes as the local backend's copy benchmark
// (internal/sandbox/backend/local/bench_test.go), so that copy figures of
// every backend compare on identical data.
package benchdata

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// Tree shape: 20 top directories × 10 subdirectories × 50 files of 1 B to
// 40 KiB each (about 200 MB in all), pseudo-random from fixed seeds.
const (
	TreeFiles = 20 * 10 * 50
	MaxFile   = 40 << 10
	stamp     = ".sandbox-bench-tree-v1" // suffix of a file beside the tree
)

// GenerateTree writes the tree into dir (created when missing) unless the
// stamp file <dir>.sandbox-bench-tree-v1 marks a complete earlier
// generation. Files get mode 0644,
// directories 0755 (before the umask).
func GenerateTree(dir string) error {
	if _, err := os.Stat(dir + stamp); err == nil {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	var seed [32]byte
	binary.LittleEndian.PutUint64(seed[:], 0x5eed)
	rng := rand.NewChaCha8(seed)
	sizes := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, MaxFile)
	for i := range TreeFiles {
		p := filepath.Join(dir, fmt.Sprintf("d%02d", i/500), fmt.Sprintf("s%02d", i/50%10), fmt.Sprintf("f%04d.bin", i))
		if i%50 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
		}
		chunk := buf[:1+sizes.IntN(MaxFile)]
		_, _ = rng.Read(chunk)
		if err := os.WriteFile(p, chunk, 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(dir+stamp, nil, 0o644)
}
