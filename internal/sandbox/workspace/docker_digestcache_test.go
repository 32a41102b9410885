package workspace_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/fshelper"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/edits"
)

// The file helper keeps the digest cache of a tree walk inside the
// container, beside itself and outside the root: an unchanged file's
// digest comes from the cache, and a file rewritten in the second it was
// hashed, one rewritten with its times put back and one swapped for another
// inode are all hashed again. Nothing lands in the workspace or in the
// container user's home.
func TestDockerDigestCache(t *testing.T) {
	dockertest.Require(t)
	if os.Geteuid() != 0 {
		t.Skip("reaching the container's files from the host (/proc/<pid>/root) needs root")
	}
	ctx := context.Background()
	eng := workspace.New(workspace.Config{LocalBaseDir: t.TempDir(), WorkingDir: t.TempDir()})
	w, err := eng.CreateDocker(ctx, workspace.DockerSpec{Image: dockertest.Image, PullPolicy: "never"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Destroy(context.Background(), w.ID, false) })
	info, err := dockertest.Client().ContainerInspect(ctx, w.ContainerID, client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fsRoot := fmt.Sprintf("/proc/%d/root", info.Container.State.Pid)
	edits.CheckCacheIn(t, filepath.Join(fsRoot, w.Root, "copy"), fsRoot+fshelper.DigestDir, func() map[string]string {
		st, err := w.ReadTree(ctx, "copy")
		if err != nil {
			t.Fatal(err)
		}
		return st.Tree.Files
	})
	entries, err := os.ReadDir(filepath.Join(fsRoot, w.Root))
	if err != nil || len(entries) != 1 || entries[0].Name() != "copy" {
		t.Fatalf("the workspace root holds %v (%v), want only copy", entries, err)
	}
	if _, err := os.Stat(filepath.Join(fsRoot, "root", ".cache")); !os.IsNotExist(err) {
		t.Fatalf("a cache was written in the container user's home: %v", err)
	}
}
