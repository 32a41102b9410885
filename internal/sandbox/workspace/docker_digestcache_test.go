package workspace_test

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/edits"
)

// newDockerSeenFromHost creates a Docker workspace and returns it with the
// host path of its container's filesystem (/proc/<pid>/root).
func newDockerSeenFromHost(t *testing.T) (*workspace.Workspace, string) {
	t.Helper()
	dockertest.Require(t)
	if os.Geteuid() != 0 {
		t.Skip("reaching the container's files from the host (/proc/<pid>/root) needs root")
	}
	ctx := context.Background()
	eng := workspace.New(workspace.Config{LocalBaseDir: t.TempDir(), WorkingDir: t.TempDir()})
	w, err := eng.CreateDocker(ctx, spec.Docker{Image: dockertest.Image, PullPolicy: "never"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Destroy(context.Background(), w.ID, false) })
	info, err := dockertest.Client().ContainerInspect(ctx, w.ContainerID, client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return w, fmt.Sprintf("/proc/%d/root", info.Container.State.Pid)
}

// checkOnlyCacheWritten fails unless the workspace root holds only want and
// the container user's home holds no cache.
func checkOnlyCacheWritten(t *testing.T, w *workspace.Workspace, fsRoot, want string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(fsRoot, w.Root))
	if err != nil || len(entries) != 1 || entries[0].Name() != want {
		t.Fatalf("the workspace root holds %v (%v), want only %s", entries, err, want)
	}
	if _, err := os.Stat(filepath.Join(fsRoot, "root", ".cache")); !os.IsNotExist(err) {
		t.Fatalf("a cache was written in the container user's home: %v", err)
	}
}

// The file helper keeps the digest cache of a tree walk inside the
// container, beside itself and outside the root: an unchanged file's
// digest comes from the cache, and a file rewritten in the second it was
// hashed, one rewritten with its times put back and one swapped for another
// inode are all hashed again. Nothing lands in the workspace or in the
// container user's home.
func TestDockerDigestCache(t *testing.T) {
	w, fsRoot := newDockerSeenFromHost(t)
	edits.CheckCacheIn(t, filepath.Join(fsRoot, w.Root, "copy"), fsRoot+fshelper.DigestDir, func() map[string]string {
		st, err := w.ReadTree(context.Background(), "copy")
		if err != nil {
			t.Fatal(err)
		}
		return st.Tree.Files
	})
	checkOnlyCacheWritten(t, w, fsRoot, "copy")
}

// A single file's refresh in a container (Stat with its digest, one helper
// process) goes through the same cache, one scope per file: an unchanged
// file's cached digest comes back (a planted one, so the file was not
// read) while the same three edits are each hashed again. A cache that
// cannot be written (its directory replaced by a file) costs only the
// hash: the refresh still answers, with the file's real digest.
func TestDockerFileDigestCache(t *testing.T) {
	w, fsRoot := newDockerSeenFromHost(t)
	ctx := context.Background()
	names := []string{"same", "now", "back", "swap"}
	digests := func() map[string]string {
		sums := map[string]string{}
		for _, name := range names {
			st, err := w.Stat(ctx, "files/"+name, true)
			if err != nil || !st.Exists {
				t.Fatalf("Stat(files/%s) = %+v, %v", name, st, err)
			}
			sums[name] = st.SHA256
		}
		return sums
	}
	cacheDir := fsRoot + fshelper.DigestDir
	edits.CheckFileCacheIn(t, filepath.Join(fsRoot, w.Root, "files"), cacheDir, digests)
	if caches, _ := filepath.Glob(filepath.Join(cacheDir, "*.json")); len(caches) != len(names) {
		t.Fatalf("cache files %v, want one per file (%d)", caches, len(names))
	}
	checkOnlyCacheWritten(t, w, fsRoot, "files")

	if err := os.RemoveAll(cacheDir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cacheDir, []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	edits.Rewrite(t, filepath.Join(fsRoot, w.Root, "files", "same"), "SAME")
	sum := sha256.Sum256([]byte("SAME"))
	for range 2 {
		if got := digests()["same"]; got != hex.EncodeToString(sum[:]) {
			t.Fatalf("with an unwritable cache the digest is %s, want the new content's", got)
		}
	}
}
