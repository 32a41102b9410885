//go:build linux

package local

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/user"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

// snapshot records names and modes below dir, to prove it stayed untouched.
func snapshot(t *testing.T, dir string) map[string]os.FileMode {
	t.Helper()
	out := map[string]os.FileMode{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		out[p] = fi.Mode()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSymlinksNeverFollowed plants symlinks inside the workspace that point
// outside (and inside) and checks that every operation through them fails
// with ErrEscapesRoot, with openat2 and with the openat fallback walk.
func TestSymlinksNeverFollowed(t *testing.T) {
	for _, fallback := range []bool{false, true} {
		t.Run("fallback="+strconv.FormatBool(fallback), func(t *testing.T) {
			noOpenat2.Store(fallback)
			defer noOpenat2.Store(false)
			outside := t.TempDir()
			if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("secret"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(filepath.Join(outside, "sub"), 0o700); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, outside)

			b := newWorkspace(t)
			root := b.Root()
			if err := b.MkdirAll(bg, "in/dir", 0o755); err != nil {
				t.Fatal(err)
			}
			for name, target := range map[string]string{
				"link":       outside,
				"in/deep":    outside,
				"inner":      "in",                                 // stays inside: still never followed
				"leaf":       filepath.Join(outside, "secret"),     // a file symlink
				"in/dir/rel": "../../../" + filepath.Base(outside), // relative escape attempt
			} {
				if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
					t.Fatal(err)
				}
			}

			ops := map[string]func(rel string) error{
				"WriteFile": func(rel string) error {
					_, err := b.WriteFile(bg, rel, strings.NewReader("pwned"), 0o777, "")
					return err
				},
				"MkdirAll":  func(rel string) error { return b.MkdirAll(bg, rel, 0o777) },
				"Chmod":     func(rel string) error { return b.Chmod(bg, rel, 0o777) },
				"Chgrp":     func(rel string) error { return b.Chgrp(bg, rel, strconv.Itoa(os.Getgid())) },
				"Remove":    func(rel string) error { return b.Remove(bg, rel) },
				"RemoveAll": func(rel string) error { return b.RemoveAll(bg, rel) },
				"HashFile":  func(rel string) error { _, _, err := b.HashFile(bg, rel); return err },
				"Stat":      func(rel string) error { _, err := b.Stat(bg, rel); return err },
				"WalkFiles": func(rel string) error { _, err := b.WalkFiles(bg, rel); return err },
			}
			through := []string{"link/secret", "link/sub/x", "in/deep/secret", "inner/dir", "in/dir/rel/secret"}
			for name, op := range ops {
				for _, rel := range through {
					if err := op(rel); !errors.Is(err, backend.ErrEscapesRoot) {
						t.Errorf("%s(%q): want ErrEscapesRoot, got %v", name, rel, err)
					}
				}
			}
			// The symlink itself as the target of a write, chmod, chgrp, hash
			// or walk would have to be followed.
			for _, name := range []string{"WriteFile", "Chmod", "Chgrp", "HashFile", "WalkFiles"} {
				for _, rel := range []string{"leaf", "link"} {
					if err := ops[name](rel); !errors.Is(err, backend.ErrEscapesRoot) {
						t.Errorf("%s(%q): want ErrEscapesRoot, got %v", name, rel, err)
					}
				}
			}
			if !reflect.DeepEqual(snapshot(t, outside), before) {
				t.Fatal("the directory outside the workspace changed")
			}
			if got, _ := os.ReadFile(filepath.Join(outside, "secret")); string(got) != "secret" {
				t.Fatalf("outside file changed: %q", got)
			}

			// Symlinks themselves can be described and removed.
			if fi, err := b.Stat(bg, "link"); err != nil || !fi.IsSymlink {
				t.Fatalf("Stat(link) %+v %v", fi, err)
			}
			if err := b.Remove(bg, "leaf"); err != nil {
				t.Fatal(err)
			}
			if err := b.RemoveAll(bg, "."); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(snapshot(t, outside), before) {
				t.Fatal("RemoveAll(.) reached outside the workspace")
			}
		})
	}
}

func TestChgrp(t *testing.T) {
	b := newWorkspace(t)
	if _, err := b.WriteFile(bg, "f", strings.NewReader("x"), 0o644, ""); err != nil {
		t.Fatal(err)
	}
	gid := os.Getgid()
	name := strconv.Itoa(gid)
	if g, err := user.LookupGroupId(name); err == nil {
		name = g.Name
	}
	for _, group := range []string{name, strconv.Itoa(gid)} {
		if err := b.Chgrp(bg, "f", group); err != nil {
			t.Fatalf("Chgrp(%q): %v", group, err)
		}
		fi, err := b.Stat(bg, "f")
		if err != nil || fi.Gid != gid || fi.Group != name {
			t.Fatalf("Stat after Chgrp: %+v %v", fi, err)
		}
	}
	err := b.Chgrp(bg, "f", "no-such-group-for-sandbox-tests")
	if err == nil || !strings.Contains(err.Error(), `"no-such-group-for-sandbox-tests"`) {
		t.Fatalf("unknown group: %v", err)
	}
}

func TestWalkFiles(t *testing.T) {
	b := newWorkspace(t)
	root := b.Root()
	files := map[string]string{"top": "1", "a/b.txt": "22", "a.txt": "333", "a/c/d/e": "", "z z": "5"}
	for rel, content := range files {
		p := filepath.Join(root, "tree", rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(root, "tree", "top"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(root, "tree", "a", "sl")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "tree", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "tree", "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := b.WalkFiles(bg, "tree")
	if err != nil {
		t.Fatal(err)
	}
	var want []backend.TreeFile
	for _, rel := range []string{"a.txt", "a/b.txt", "a/c/d/e", "a/sl", "top", "z z"} {
		if rel == "a/sl" {
			want = append(want, backend.TreeFile{Rel: rel, Perm: 0o777})
			continue
		}
		s := sha256.Sum256([]byte(files[rel]))
		perm := os.FileMode(0o644)
		if rel == "top" {
			perm = 0o700
		}
		want = append(want, backend.TreeFile{Rel: rel, Size: int64(len(files[rel])), SHA256: hex.EncodeToString(s[:]), Perm: perm})
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("WalkFiles\n%+v\nwant\n%+v", got, want)
	}
	if all, err := b.WalkFiles(bg, "."); err != nil || len(all) != len(want) || all[0].Rel != "tree/a.txt" {
		t.Fatalf("WalkFiles(.) %+v %v", all, err)
	}
}
