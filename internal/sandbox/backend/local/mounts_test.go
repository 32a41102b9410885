package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/need"
)

// TestRemovalRefusesMountedTrees mounts a tmpfs inside a workspace and
// proves that neither RemoveAll of its parent nor Destroy of the workspace
// touches it or anything else: removing the files of a mounted bucket would
// delete remote data.
func TestRemovalRefusesMountedTrees(t *testing.T) {
	root := filepath.Join(t.TempDir(), "ws")
	b := New(root)
	if err := b.Create(context.Background()); err != nil {
		t.Fatal(err)
	}
	mnt := filepath.Join(root, "data", "bucket")
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "sandbox-test", mnt).CombinedOutput(); err != nil {
		need.Unavailable(t, "mount-point tests", fmt.Sprintf("cannot mount a tmpfs here (needs root): %v: %s", err, out))
	}
	t.Cleanup(func() { _ = exec.Command("umount", mnt).Run() })
	object := filepath.Join(mnt, "object.txt")
	if err := os.WriteFile(object, []byte("remote data"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := b.RemoveAll(context.Background(), "data"); !errors.Is(err, ErrMountInside) {
		t.Fatalf("RemoveAll(data) over a mount: %v, want ErrMountInside", err)
	}
	if err := b.Destroy(context.Background()); !errors.Is(err, ErrMountInside) {
		t.Fatalf("Destroy over a mount: %v, want ErrMountInside", err)
	}
	if got, err := os.ReadFile(object); err != nil || string(got) != "remote data" {
		t.Fatalf("the mounted file was touched: %q, %v", got, err)
	}
	if err := exec.Command("umount", mnt).Run(); err != nil {
		t.Fatal(err)
	}
	if err := b.Destroy(context.Background()); err != nil {
		t.Fatalf("Destroy once unmounted: %v", err)
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Fatalf("root survived Destroy: %v", err)
	}
}

// TestWalkSkipsMountPoints proves a tree walk never lists the files of a
// filesystem mounted inside it, so a copy that removes extra files can
// never reach them.
func TestWalkSkipsMountPoints(t *testing.T) {
	root := filepath.Join(t.TempDir(), "ws")
	b := New(root)
	if err := b.Create(context.Background()); err != nil {
		t.Fatal(err)
	}
	mnt := filepath.Join(root, "proj", "data")
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "proj", "own.txt"), []byte("own"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "sandbox-test", mnt).CombinedOutput(); err != nil {
		need.Unavailable(t, "mount-point tests", fmt.Sprintf("cannot mount a tmpfs here (needs root): %v: %s", err, out))
	}
	t.Cleanup(func() { _ = exec.Command("umount", mnt).Run() })
	if err := os.WriteFile(filepath.Join(mnt, "object.txt"), []byte("remote"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := b.WalkFiles(context.Background(), "proj")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Rel != "own.txt" {
		t.Fatalf("walk listed %v, want only own.txt", files)
	}
}

// TestRemovalOfSymlinkToMountedTree: an agent replaces a directory entry
// with a symlink to a directory that holds mount points (/proc, /etc in a
// container): RemoveAll removes the link itself, without looking at or
// touching what it points to.
func TestRemovalOfSymlinkToMountedTree(t *testing.T) {
	root := filepath.Join(t.TempDir(), "ws")
	b := New(root)
	if err := b.Create(context.Background()); err != nil {
		t.Fatal(err)
	}
	if points, err := mountPointsUnder("/proc"); err != nil || len(points) == 0 {
		need.Unavailable(t, "mount-point tests", fmt.Sprintf("no mount point at or below /proc here (%v)", err))
	}
	link := filepath.Join(root, "skills")
	if err := os.Symlink("/proc", link); err != nil {
		t.Fatal(err)
	}
	if err := b.RemoveAll(context.Background(), "skills"); err != nil {
		t.Fatalf("RemoveAll of a symlink to a mounted tree: %v", err)
	}
	if _, err := os.Lstat(link); !os.IsNotExist(err) {
		t.Fatalf("the link survived: %v", err)
	}
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Fatalf("the link's target was touched: %v", err)
	}
}
