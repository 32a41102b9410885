package hostsource

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

func ptr(s string) *string { return &s }

func TestResolveWorkspacePathFollowsHostSymlinks(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{root, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if got, err := ResolveWorkspacePath(root, root+"/sub/file", true); err != nil || got != root+"/sub/file" {
		t.Fatalf("inside: %q, %v", got, err)
	}
	_, err := ResolveWorkspacePath(root, root+"/link/secret", true)
	if want := sandbox.NewInvalidManifestPathError(root+"/link/secret", sandbox.ReasonAbsolute); !reflect.DeepEqual(err, want) {
		t.Fatalf("through a symlink: %v, want %v", err, want)
	}
	// A relative path is never resolved on the host.
	if got, err := ResolveWorkspacePath(root, "link/secret", false); err != nil || got != root+"/link/secret" {
		t.Fatalf("relative: %q, %v", got, err)
	}
}

func TestResolveGrantRoot(t *testing.T) {
	base := t.TempDir()
	target := filepath.Join(base, "target")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/", filepath.Join(base, "rootlink")); err != nil {
		t.Fatal(err)
	}
	realTarget, err := filepath.EvalSymlinks(target)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := posix.NewPathGrant("/mnt/d", false, nil, ptr(filepath.Join(base, "link", "missing")))
	if got, err := ResolveGrantRoot(g); err != nil || got != realTarget+"/missing" {
		t.Errorf("ResolveGrantRoot = %q, %v; want %q", got, err, realTarget+"/missing")
	}
	g, _ = posix.NewPathGrant("/mnt/d", false, nil, ptr(filepath.Join(base, "rootlink")))
	if _, err := ResolveGrantRoot(g); err == nil || err.Error() != "sandbox path grant path must not resolve to filesystem root" {
		t.Errorf("root link: %v", err)
	}
	g, _ = posix.NewPathGrant("/mnt/d", false, nil, ptr(`C:\data`))
	if _, err := ResolveGrantRoot(g); err == nil || err.Error() != `sandbox path grant host_path must be absolute on the current host: C:\data` {
		t.Errorf("windows host path: %v", err)
	}
	if _, err := ResolveGrantRoot(posix.PathGrant{Path: "/"}); err == nil || err.Error() != "sandbox path grant path must not be filesystem root" {
		t.Errorf("root grant: %v", err)
	}
}
