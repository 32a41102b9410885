//go:build bench

package workspace_test

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/benchdata"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// TestDockerCopyBenchmark copies the 10,000-file, ~200 MB benchmark tree
// into a container workspace with the engine (the sandbox_local_dir path:
// host scan with SHA-256, one tar stream to the in-container helper, which
// hashes, checks and renames every file) and with `docker cp` of the same
// tree into the same container, each three times with a warm page cache,
// and prints the median times and their ratio. It is built only with the
// `bench` tag (scripts/bench-docker.sh, `make bench`), never in the test
// suite: speed goals live in benchmarks, so it asserts only that the
// copies succeed.
func TestDockerCopyBenchmark(t *testing.T) {
	dockertest.Require(t)
	data := os.Getenv("SANDBOX_BENCH_DIR")
	if data == "" {
		data = t.TempDir()
	}
	tree := filepath.Join(data, "docker-tree")
	if err := benchdata.GenerateTree(tree); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	eng := workspace.New(workspace.Config{LocalBaseDir: t.TempDir(), WorkingDir: data,
		Grants: []posix.PathGrant{}})
	w, err := eng.CreateDocker(ctx, spec.Docker{Image: dockertest.Image, PullPolicy: "never"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = eng.Destroy(ctx, w.ID, false) }()

	engineCopy := func(i int) time.Duration {
		start := time.Now()
		td, err := w.SyncLocalDir(ctx, fmt.Sprintf("engine-%d", i), "docker-tree", workspace.Meta{Perm: 0o755}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(td.Files) != benchdata.TreeFiles {
			t.Fatalf("copied %d files", len(td.Files))
		}
		return time.Since(start)
	}
	dockerCp := func(i int) time.Duration {
		start := time.Now()
		out, err := exec.Command("docker", "cp", tree, fmt.Sprintf("%s:/workspace/cp-%d", w.ContainerID, i)).CombinedOutput()
		if err != nil {
			t.Fatalf("docker cp: %v: %s", err, out)
		}
		return time.Since(start)
	}
	// Warm the page cache and the helper once, untimed.
	engineCopy(0)
	dockerCp(0)
	var eng3, cp3 []time.Duration
	for i := 1; i <= 3; i++ {
		eng3 = append(eng3, engineCopy(i))
		cp3 = append(cp3, dockerCp(i))
	}
	e, c := median(eng3), median(cp3)
	fmt.Printf("docker copy of %d files: engine %.3fs (runs %v), docker cp %.3fs (runs %v), ratio %.2fx (goal <= 1.0x)\n",
		benchdata.TreeFiles, e.Seconds(), eng3, c.Seconds(), cp3, float64(e)/float64(c))
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
