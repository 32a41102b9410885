//go:build linux

package fshelper

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/digestcache"
)

func call(t *testing.T, stdin []byte, args ...string) Response {
	t.Helper()
	return callSealed(t, nil, stdin, args...)
}

// callSealed runs one operation as the provider does: an operation that
// uses the digest cache gets the seal line of key first (nil: no key).
func callSealed(t *testing.T, key, stdin []byte, args ...string) Response {
	t.Helper()
	t.Setenv(digestcache.Env, os.Getenv(digestcache.Env)) // Main may turn the cache off
	t.Cleanup(func() { digestcache.SetKey(nil) })
	if arg := ""; len(args) > 0 {
		if len(args) > 3 {
			arg = args[3]
		}
		if Sealed(args[0], arg) {
			stdin = append(SealLine(key), stdin...)
		}
	}
	var out, errOut bytes.Buffer
	if code := Main(args, bytes.NewReader(stdin), &out, &errOut); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
	}
	var r Response
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func tarOf(t *testing.T, name, content, sum string) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o600, Size: int64(len(content)), Format: tar.FormatPAX}
	if sum != "" {
		hdr.PAXRecords = map[string]string{PAXSHA256: sum}
	}
	if err := tw.WriteHeader(hdr); err != nil {
		t.Fatal(err)
	}
	_, _ = tw.Write([]byte(content))
	_ = tw.Close()
	return buf.Bytes()
}

func TestMain_operations(t *testing.T) {
	root := filepath.Join(t.TempDir(), "ws")
	if r := call(t, nil, OpInit, root, "."); r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	r := call(t, tarOf(t, "d/f.txt", "hi", ""), OpWrite, root, ".")
	if r.Error != nil || len(r.Written) != 1 || r.Written[0].Size != 2 {
		t.Fatalf("write: %+v", r)
	}
	if r := call(t, nil, OpStat, root, "d/f.txt"); r.Info == nil || r.Info.Perm != 0o600 || !r.Info.IsRegular {
		t.Fatalf("stat: %+v", r)
	}
	if r := call(t, nil, OpWalk, root, "d"); len(r.Files) != 1 || r.Files[0].Rel != "f.txt" {
		t.Fatalf("walk: %+v", r)
	}
	if err := call(t, nil, OpStat, root, "nope").Error.Err(); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
	if err := call(t, tarOf(t, "g", "x", strings.Repeat("0", 64)), OpWrite, root, ".").Error.Err(); !errors.Is(err, backend.ErrContentChanged) {
		t.Fatalf("mismatch: %v", err)
	}
	if err := os.Symlink("/etc", filepath.Join(root, "etc")); err != nil {
		t.Fatal(err)
	}
	if err := call(t, tarOf(t, "etc/x", "x", ""), OpWrite, root, ".").Error.Err(); !errors.Is(err, backend.ErrEscapesRoot) {
		t.Fatalf("symlink: %v", err)
	}
	if code := Main([]string{"bogus", root, "."}, nil, &bytes.Buffer{}, &bytes.Buffer{}); code != 2 {
		t.Fatalf("unknown op: exit %d", code)
	}
}

// TestMain_safetyOperations: ENOTDIR keeps its kind, OpRemoveTree removes
// a listed tree in one call, and OpMkdir and OpWrite re-create a deleted
// root first.
func TestMain_safetyOperations(t *testing.T) {
	root := filepath.Join(t.TempDir(), "ws")
	if r := call(t, tarOf(t, "t/a/f.txt", "hi", ""), OpWrite, root, "."); r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	if err := call(t, nil, OpStat, root, "t/a/f.txt/below").Error.Err(); !errors.Is(err, syscall.ENOTDIR) {
		t.Fatalf("stat below a file: %v", err)
	}
	r := call(t, []byte(`["a/f.txt"]`), OpRemoveTree, root, "t")
	if r.Error != nil || r.Removal == nil || r.Removal.Left != 0 {
		t.Fatalf("removetree: %+v", r)
	}
	if _, err := os.Lstat(filepath.Join(root, "t")); !os.IsNotExist(err) {
		t.Fatalf("the tree is still there: %v", err)
	}
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	if r := call(t, nil, OpMkdir, root, "d", "488"); r.Error != nil { // 0750
		t.Fatal(r.Error.Message)
	}
	if fi, err := os.Stat(root); err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("root re-created by mkdir: %v, %v", fi, err)
	}
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	if r := call(t, tarOf(t, "f", "x", ""), OpWrite, root, "."); r.Error != nil {
		t.Fatal(r.Error.Message)
	}
}
