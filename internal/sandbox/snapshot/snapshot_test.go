//go:build linux

package snapshot

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

func writeTree(t *testing.T, root string) {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "src/pkg"), 0o755))
	must(os.WriteFile(filepath.Join(root, "src/pkg/a.txt"), []byte("alpha\n"), 0o644))
	must(os.WriteFile(filepath.Join(root, "run.sh"), []byte("#!/bin/sh\n"), 0o755))
	must(os.Chmod(filepath.Join(root, "run.sh"), 0o750))
	must(os.WriteFile(filepath.Join(root, "secret.tmp"), []byte("ephemeral"), 0o600))
	must(os.MkdirAll(filepath.Join(root, "cache/deep"), 0o700))
	must(os.WriteFile(filepath.Join(root, "cache/deep/x"), []byte("x"), 0o600))
	must(os.Symlink("src/pkg/a.txt", filepath.Join(root, "link")))
}

func members(t *testing.T, archive []byte) map[string]*tar.Header {
	t.Helper()
	out := map[string]*tar.Header{}
	tr := tar.NewReader(bytes.NewReader(archive))
	for {
		hdr, err := tr.Next()
		if err != nil {
			break
		}
		out[hdr.Name] = hdr
	}
	return out
}

func TestPersistRestoreRoundTrip(t *testing.T) {
	src := t.TempDir()
	writeTree(t, src)
	var buf bytes.Buffer
	sum, err := Persist(context.Background(), src, []string{"secret.tmp", "cache"}, "d1", &buf)
	if err != nil {
		t.Fatal(err)
	}
	raw := sha256.Sum256(buf.Bytes())
	if sum.SHA256 != hex.EncodeToString(raw[:]) || sum.Size != int64(buf.Len()) {
		t.Fatalf("summary %+v does not describe the %d bytes written", sum, buf.Len())
	}
	fp := sha256.Sum256(append(buf.Bytes(), "d1"...))
	if sum.Fingerprint != hex.EncodeToString(fp[:]) {
		t.Fatalf("fingerprint %s, want sha256(tar || digest)", sum.Fingerprint)
	}
	m := members(t, buf.Bytes())
	for _, want := range []string{"./", "./src/", "./src/pkg/", "./src/pkg/a.txt", "./run.sh", "./link"} {
		if m[want] == nil {
			t.Errorf("member %s missing; have %v", want, m)
		}
	}
	for name := range m {
		if strings.Contains(name, "secret") || strings.Contains(name, "cache") {
			t.Errorf("skip path persisted: %s", name)
		}
	}
	if m["./run.sh"].Mode != 0o750 || m["./link"].Linkname != "src/pkg/a.txt" {
		t.Errorf("run.sh mode %o, link -> %q", m["./run.sh"].Mode, m["./link"].Linkname)
	}
	if sum.FileCount != 2 || sum.Files["src/pkg/a.txt"] == "" {
		t.Errorf("files %v", sum.Files)
	}
	if _, err := Validate(bytes.NewReader(buf.Bytes()), sandbox.OutputLimits{}); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	got, err := Extract(context.Background(), dst, bytes.NewReader(buf.Bytes()), true, sandbox.OutputLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if got.SHA256 != sum.SHA256 || len(got.Files) != 2 || got.Files["run.sh"] != sum.Files["run.sh"] {
		t.Fatalf("restored %+v, persisted %+v", got, sum)
	}
	fi, err := os.Stat(filepath.Join(dst, "run.sh"))
	if err != nil || fi.Mode().Perm() != 0o750 {
		t.Fatalf("run.sh restored as %v, %v", fi, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "link")); string(b) != "alpha\n" {
		t.Fatalf("link reads %q", b)
	}
	if _, err := os.Lstat(filepath.Join(dst, "secret.tmp")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("secret.tmp restored: %v", err)
	}
}

type member struct {
	hdr  tar.Header
	body string
}

func archiveOf(t *testing.T, ms ...member) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, m := range ms {
		h := m.hdr
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(m.body))
		}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(m.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestValidateRefusesUnsafeMembers(t *testing.T) {
	ok := member{hdr: tar.Header{Name: "./ok.txt", Typeflag: tar.TypeReg}, body: "fine"}
	cases := map[string]struct {
		ms   []member
		name string
	}{
		"absolute": {[]member{ok, {hdr: tar.Header{Name: "/etc/passwd", Typeflag: tar.TypeReg}, body: "x"}}, "/etc/passwd"},
		"dotdot":   {[]member{ok, {hdr: tar.Header{Name: "./a/../../evil", Typeflag: tar.TypeReg}, body: "x"}}, "./a/../../evil"},
		"symlink to /etc then through it": {[]member{ok,
			{hdr: tar.Header{Name: "./etc", Typeflag: tar.TypeSymlink, Linkname: "/etc"}}}, "./etc"},
		"relative symlink then through it": {[]member{ok,
			{hdr: tar.Header{Name: "./d", Typeflag: tar.TypeSymlink, Linkname: "sub"}},
			{hdr: tar.Header{Name: "./d/passwd", Typeflag: tar.TypeReg}, body: "x"}}, "./d/passwd"},
		"symlink climbing out": {[]member{{hdr: tar.Header{Name: "./a/up", Typeflag: tar.TypeSymlink, Linkname: "../../x"}}}, "./a/up"},
		"hard link out":        {[]member{ok, {hdr: tar.Header{Name: "./h", Typeflag: tar.TypeLink, Linkname: "../../etc/shadow"}}}, "./h"},
		"hard link to absent":  {[]member{ok, {hdr: tar.Header{Name: "./h", Typeflag: tar.TypeLink, Linkname: "./nope"}}}, "./h"},
		"device":               {[]member{ok, {hdr: tar.Header{Name: "./null", Typeflag: tar.TypeChar, Devmajor: 1, Devminor: 3}}}, "./null"},
		"fifo":                 {[]member{ok, {hdr: tar.Header{Name: "./fifo", Typeflag: tar.TypeFifo}}}, "./fifo"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			data := archiveOf(t, tc.ms...)
			_, err := Validate(bytes.NewReader(data), sandbox.OutputLimits{})
			if !errors.Is(err, ErrUnsafeMember) || !strings.Contains(err.Error(), `"`+tc.name+`"`) {
				t.Fatalf("Validate: %v, want a refusal naming %s", err, tc.name)
			}
			dst := t.TempDir()
			if _, err := Extract(context.Background(), dst, bytes.NewReader(data), true, sandbox.OutputLimits{}); !errors.Is(err, ErrUnsafeMember) {
				t.Fatalf("Extract: %v", err)
			}
		})
	}
}

func TestValidateRefusesShortMember(t *testing.T) {
	data := archiveOf(t, member{hdr: tar.Header{Name: "./f", Typeflag: tar.TypeReg}, body: strings.Repeat("x", 2000)})
	if _, err := Validate(bytes.NewReader(data[:1024]), sandbox.OutputLimits{}); err == nil {
		t.Fatal("a truncated member was accepted")
	}
}

func TestHardLinkInsideIsRestored(t *testing.T) {
	data := archiveOf(t, member{hdr: tar.Header{Name: "./f", Typeflag: tar.TypeReg}, body: "same"},
		member{hdr: tar.Header{Name: "./g", Typeflag: tar.TypeLink, Linkname: "./f"}})
	dst := t.TempDir()
	if _, err := Extract(context.Background(), dst, bytes.NewReader(data), true, sandbox.OutputLimits{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "g")); string(b) != "same" {
		t.Fatalf("g reads %q", b)
	}
}

func TestSkipPathsCheck(t *testing.T) {
	if err := (SkipPaths{Excluded: []string{"data/x"}, Mounts: []string{"data"}}).Check(); !errors.Is(err, ErrSkipOverlapsMount) {
		t.Fatalf("overlap accepted: %v", err)
	}
	if err := (SkipPaths{Excluded: []string{"logs"}, Mounts: []string{"data"}}).Check(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"/abs", "..", "../x", "."} {
		if _, err := CleanExclude(bad); err == nil {
			t.Errorf("CleanExclude(%q) accepted", bad)
		}
	}
}

func TestManifestDigestEscapesAsPython(t *testing.T) {
	// json.dumps({"b": "é\n\"x\"\b", "a": "😀<&>"}, sort_keys=True, separators=(",", ":"))
	want := `{"a":"\ud83d\ude00<&>","b":"\u00e9\n\"x\"\b"}`
	sum := sha256.Sum256([]byte(want))
	got, err := ManifestDigest([]byte(`{"b":"é\n\"x\"\b","a":"😀<&>"}`))
	if err != nil || got != hex.EncodeToString(sum[:]) {
		t.Fatalf("digest %s, %v; want sha256 of %s", got, err, want)
	}
}

func TestSummarizeMatchesPersist(t *testing.T) {
	src := t.TempDir()
	writeTree(t, src)
	var buf bytes.Buffer
	sum, err := PersistRoot(context.Background(), src, []string{"secret.tmp"}, []string{src + "/cache"}, "dg", &buf)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Summarize(bytes.NewReader(buf.Bytes()), "dg")
	if err != nil {
		t.Fatal(err)
	}
	if got.SHA256 != sum.SHA256 || got.Fingerprint != sum.Fingerprint || got.Size != sum.Size || len(got.Files) != len(sum.Files) {
		t.Fatalf("Summarize %+v, Persist %+v", got, sum)
	}
	if _, ok := got.Files["cache/deep/x"]; ok {
		t.Fatal("a mount point was persisted")
	}
	if _, err := PersistRoot(context.Background(), src, []string{"cache/deep"}, []string{src + "/cache"}, "", &buf); !errors.Is(err, ErrSkipOverlapsMount) {
		t.Fatalf("overlap: %v", err)
	}
}

// Owners come from the archive only when asked (inside a container); a
// host restore keeps the restoring user as owner of every file.
func TestExtractOwners(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("restoring owners needs root")
	}
	data := archiveOf(t, member{hdr: tar.Header{Name: "./f", Typeflag: tar.TypeReg, Mode: 0o644, Uid: 1234, Gid: 4321}, body: "x"})
	for _, owners := range []bool{true, false} {
		dst := t.TempDir()
		if _, err := Extract(context.Background(), dst, bytes.NewReader(data), owners, sandbox.OutputLimits{}); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(filepath.Join(dst, "f"))
		if err != nil {
			t.Fatal(err)
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			t.Fatal("no stat")
		}
		want := uint32(0)
		if owners {
			want = 1234
		}
		if st.Uid != want {
			t.Fatalf("owners=%v: uid %d, want %d", owners, st.Uid, want)
		}
	}
}
