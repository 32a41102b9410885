//go:build linux

package local

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestCheckOwner(t *testing.T) {
	defer ActAsUIDForTests(65534)()
	if err := CheckOwner("65534"); err != nil {
		t.Errorf("own uid refused: %v", err)
	}
	if err := CheckOwner(OwnUser()); err != nil {
		t.Errorf("own user %s refused: %v", OwnUser(), err)
	}
	for _, other := range []string{"root", "0", "1000"} {
		err := CheckOwner(other)
		if err == nil || !strings.Contains(err.Error(), "needs the provider to run as root") {
			t.Errorf("CheckOwner(%q) = %v, want a refusal saying root is needed", other, err)
		}
	}
	if err := CheckOwner("no-such-user-for-sandbox-tests"); err == nil || !strings.Contains(err.Error(), "unknown user") {
		t.Errorf("unknown user: %v", err)
	}
}

// A tree chown reaches every directory and file below the top, never a
// symlink's target, and refuses another owner when not root.
func TestChownTree(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving files to another user needs root") // the refusal is TestCheckOwner's
	}
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "top/a/b"), 0o755))
	must(os.WriteFile(filepath.Join(root, "top/a/b/f"), []byte("x"), 0o644))
	must(os.WriteFile(filepath.Join(root, "top/g"), []byte("y"), 0o644))
	must(os.WriteFile(outside, []byte("z"), 0o644))
	must(os.Symlink(outside, filepath.Join(root, "top/a/link")))
	b := New(root)
	ctx := context.Background()
	must(b.Chown(ctx, "top", "1234", "4321", true))
	for _, p := range []string{"top", "top/a", "top/a/b", "top/a/b/f", "top/g"} {
		var st syscall.Stat_t
		must(syscall.Lstat(filepath.Join(root, p), &st))
		if st.Uid != 1234 || st.Gid != 4321 {
			t.Errorf("%s: %d:%d, want 1234:4321", p, st.Uid, st.Gid)
		}
	}
	var st syscall.Stat_t
	must(syscall.Stat(outside, &st))
	if st.Uid == 1234 {
		t.Errorf("the symlink's target outside the root was chowned")
	}
	must(b.Chown(ctx, "top/g", "55", "", false))
	info, err := b.Stat(ctx, "top/g")
	must(err)
	if info.Uid != 55 || info.Gid != 4321 || info.Owner != "55" {
		t.Errorf("Stat after chown: %+v", info)
	}
	files, err := b.WalkFiles(ctx, "top")
	must(err)
	for _, f := range files {
		if f.SHA256 != "" && f.Uid != 1234 && f.Rel != "g" {
			t.Errorf("WalkFiles %s: uid %d", f.Rel, f.Uid)
		}
	}
	defer ActAsUIDForTests(65534)()
	if err := b.Chown(ctx, "top", "root", "", true); err == nil || !strings.Contains(err.Error(), "needs the provider to run as root") {
		t.Errorf("Chown to root as uid 65534: %v", err)
	}
}

// An owner with no group gives the owner's primary group, as `chown
// nobody:` does; the group `id` reports is the expected one.
func TestChownOwnerOnlyGivesPrimaryGroup(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving files to another user needs root")
	}
	out, err := exec.Command("id", "-g", "nobody").Output()
	if err != nil {
		t.Fatalf("id -g nobody: %v", err)
	}
	want, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || want == 0 {
		t.Fatalf("id -g nobody gave %q", out)
	}
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := New(root).Chown(context.Background(), "f", "nobody", "", false); err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(filepath.Join(root, "f"), &st); err != nil {
		t.Fatal(err)
	}
	if int(st.Gid) != want {
		t.Errorf("gid %d after chown nobody, want nobody's primary group %d", st.Gid, want)
	}
}
