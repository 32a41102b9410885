package workspace

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

// makeSparse writes a file of size bytes at p holding "DATA" at each of
// offsets and holes everywhere else.
func makeSparse(t *testing.T, p string, size int64, offsets ...int64) {
	t.Helper()
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, off := range offsets {
		if _, err := f.WriteAt([]byte("DATA"), off); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
}

func fileSHA(t *testing.T, p string) string {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// dirEntries lists every name below dir (temporary files included).
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err == nil && p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// A 256 MiB sparse file is exported sparse: its holes take no blocks on the
// host and do not count against max_bytes, its data does.
func TestExportKeepsSparseFilesSparse(t *testing.T) {
	w, dest := exportFixture(t, map[string]string{"out/small.txt": "hi\n"})
	src := filepath.Join(w.Root, "out/big.img")
	makeSparse(t, src, 256<<20, 1<<20, 128<<20, 256<<20-4)
	res, err := w.Export(context.Background(), ExportRequest{Paths: []string{"out/**"}, Destination: dest,
		Limits: sandbox.OutputLimits{MaxBytes: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	got := filepath.Join(dest, "out/big.img")
	var st syscall.Stat_t
	if err := syscall.Stat(got, &st); err != nil {
		t.Fatal(err)
	}
	if st.Size != 256<<20 || st.Blocks*512 > 1<<20 {
		t.Fatalf("exported file is %d bytes in %d bytes of blocks, want 256 MiB in at most 1 MiB", st.Size, st.Blocks*512)
	}
	want := fileSHA(t, src)
	if fileSHA(t, got) != want || res.Files["out/big.img"] != want || readBack(t, filepath.Join(dest, "out/small.txt")) != "hi\n" {
		t.Fatalf("exported content differs from the workspace's (files %v)", res.Files)
	}
}

// Data past max_bytes fails naming the file, and what was written is
// removed again with the result, leaving the destination as it was.
func TestExportStopsAtMaxBytes(t *testing.T) {
	w, dest := exportFixture(t, map[string]string{"out/a.txt": strings.Repeat("a", 600), "out/b.txt": strings.Repeat("b", 600)})
	res, err := w.Export(context.Background(), ExportRequest{Paths: []string{"out/**"}, Destination: dest,
		Limits: sandbox.OutputLimits{MaxBytes: 1000}})
	var limit *sandbox.LimitError
	if !errors.As(err, &limit) || limit.Limit != "max_bytes" || limit.Path != "out/b.txt" || limit.Value != 1000 {
		t.Fatalf("error = %v, want max_bytes at out/b.txt", err)
	}
	if _, err := w.eng.RemoveExport(dest, res.Files, res.Dirs); err != nil {
		t.Fatal(err)
	}
	if left := dirEntries(t, dest); len(left) != 0 {
		t.Fatalf("destination holds %v after the failed export", left)
	}
}

// More files than max_files fail before anything is written.
func TestExportStopsAtMaxFiles(t *testing.T) {
	w, dest := exportFixture(t, map[string]string{"out/a": "a", "out/b": "b", "out/c": "c"})
	res, err := w.Export(context.Background(), ExportRequest{Paths: []string{"out/**"}, Destination: dest,
		Limits: sandbox.OutputLimits{MaxFiles: 2}})
	var limit *sandbox.LimitError
	if !errors.As(err, &limit) || limit.Limit != "max_files" || len(res.Files) != 0 {
		t.Fatalf("error = %v, files %v; want max_files before any write", err, res.Files)
	}
	if left := dirEntries(t, dest); len(left) != 0 {
		t.Fatalf("destination holds %v", left)
	}
}

// archiveBackend is a workspace whose archives come from a function: what
// an agent in control of the helper could send.
type archiveBackend struct {
	backend.Backend
	send func(ctx context.Context, files []string, w io.Writer) error
}

func (b archiveBackend) ExportArchive(ctx context.Context, files []string, w io.Writer) error {
	return b.send(ctx, files, w)
}

func hostileArchive(members ...func(tw *tar.Writer) error) func(context.Context, []string, io.Writer) error {
	return func(_ context.Context, _ []string, w io.Writer) error {
		tw := tar.NewWriter(w)
		for _, m := range members {
			if err := m(tw); err != nil {
				return err
			}
		}
		return tw.Close()
	}
}

func member(hdr tar.Header, body string) func(*tar.Writer) error {
	return func(tw *tar.Writer) error {
		if hdr.Typeflag == 0 {
			hdr.Typeflag = tar.TypeReg
		}
		if hdr.Size == 0 && hdr.Typeflag == tar.TypeReg {
			hdr.Size = int64(len(body))
		}
		hdr.Mode, hdr.Format = 0o644, tar.FormatPAX
		if err := tw.WriteHeader(&hdr); err != nil {
			return err
		}
		_, err := io.WriteString(tw, body)
		return err
	}
}

// Whatever the archive says, nothing lands outside the destination, no
// link is made, no file takes more than max_bytes, and the destination
// is left as it was.
func TestExportRefusesHostileArchives(t *testing.T) {
	ok := member(tar.Header{Name: "out/a.txt"}, "a")
	cases := map[string]struct {
		send func(context.Context, []string, io.Writer) error
		want string
	}{
		"parent":    {hostileArchive(member(tar.Header{Name: "../evil"}, "x")), "not a workspace-relative path"},
		"absolute":  {hostileArchive(member(tar.Header{Name: "/tmp/evil"}, "x")), "not a workspace-relative path"},
		"unasked":   {hostileArchive(ok, member(tar.Header{Name: "out/other"}, "x")), "not asked for"},
		"twice":     {hostileArchive(ok, ok), "twice"},
		"symlink":   {hostileArchive(member(tar.Header{Name: "out/a.txt", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}, "")), "not a regular file"},
		"hardlink":  {hostileArchive(member(tar.Header{Name: "out/a.txt", Typeflag: tar.TypeLink, Linkname: "../../x"}, "")), "not a regular file"},
		"missing":   {hostileArchive(), "ended without out/a.txt"},
		"too large": {hostileArchive(member(tar.Header{Name: "out/a.txt"}, strings.Repeat("x", 2000))), "max_bytes"},
		"sparse past its size": {hostileArchive(member(tar.Header{Name: "out/a.txt", PAXRecords: map[string]string{
			backend.PAXExportSize: "10", backend.PAXExportData: "8+4"}}, "xxxx")), "bad data segment"},
		"sparse overlapping": {hostileArchive(member(tar.Header{Name: "out/a.txt", PAXRecords: map[string]string{
			backend.PAXExportSize: "100", backend.PAXExportData: "0+4,2+4"}}, "xxxxxxxx")), "bad data segment"},
		"sparse lying about its data": {hostileArchive(member(tar.Header{Name: "out/a.txt", PAXRecords: map[string]string{
			backend.PAXExportSize: "100", backend.PAXExportData: "0+4"}}, "xxxxxxxx")), "hold 4 bytes, the member 8"},
		"cut short": {func(_ context.Context, _ []string, w io.Writer) error {
			tw := tar.NewWriter(w)
			_ = tw.WriteHeader(&tar.Header{Name: "out/a.txt", Typeflag: tar.TypeReg, Size: 100, Mode: 0o644})
			_, _ = io.WriteString(tw, "only this")
			return errors.New("export: read out/a.txt: input/output error")
		}, "input/output error"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			w, dest := exportFixture(t, map[string]string{"out/a.txt": "a"})
			w.Backend = archiveBackend{Backend: w.Backend, send: c.send}
			res, err := w.Export(context.Background(), ExportRequest{Paths: []string{"out/**"}, Destination: dest,
				Limits: sandbox.OutputLimits{MaxBytes: 1000}})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want %q", err, c.want)
			}
			if _, err := w.eng.RemoveExport(dest, res.Files, res.Dirs); err != nil {
				t.Fatal(err)
			}
			if left := dirEntries(t, dest); len(left) != 0 {
				t.Fatalf("destination holds %v", left)
			}
			if _, err := os.Lstat(filepath.Join(filepath.Dir(dest), "evil")); !os.IsNotExist(err) {
				t.Fatalf("a file landed outside the destination: %v", err)
			}
		})
	}
}

// A helper that sends part of a file and then never answers fails when
// the context ends, leaving no temporary file in the destination.
func TestExportGivesUpOnAHelperThatNeverAnswers(t *testing.T) {
	w, dest := exportFixture(t, map[string]string{"out/a.txt": "a"})
	w.Backend = archiveBackend{Backend: w.Backend, send: func(ctx context.Context, _ []string, out io.Writer) error {
		tw := tar.NewWriter(out)
		_ = tw.WriteHeader(&tar.Header{Name: "out/a.txt", Typeflag: tar.TypeReg, Size: 100, Mode: 0o644})
		_, _ = io.WriteString(tw, "partial")
		_ = tw.Flush()
		<-ctx.Done() // the helper hangs
		return ctx.Err()
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := w.Export(ctx, ExportRequest{Paths: []string{"out/**"}, Destination: dest})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 10*time.Second {
		t.Fatalf("error = %v after %s, want the deadline", err, time.Since(start))
	}
	if _, err := w.eng.RemoveExport(dest, res.Files, res.Dirs); err != nil {
		t.Fatal(err)
	}
	if left := dirEntries(t, dest); len(left) != 0 {
		t.Fatalf("destination holds %v", left)
	}
}

// walkRecorder records the directories a workspace is asked to walk.
type walkRecorder struct {
	backend.Backend
	walked *[]string
}

func (b walkRecorder) ExportArchive(ctx context.Context, files []string, w io.Writer) error {
	return b.Backend.(backend.ExportArchiver).ExportArchive(ctx, files, w)
}

func (b walkRecorder) WalkFiles(ctx context.Context, rel string) ([]backend.TreeFile, error) {
	*b.walked = append(*b.walked, rel)
	return b.Backend.WalkFiles(ctx, rel)
}

// An export walks only the directories its globs can reach: a huge tree
// the agent leaves beside them is never listed nor hashed, and a glob root
// that is missing, a file or a symlink (out of the workspace) holds nothing.
func TestExportWalksOnlyWhatItsGlobsReach(t *testing.T) {
	w, dest := exportFixture(t, map[string]string{
		"out/a.txt": "a", "out/deep/b.log": "b", "logs/x/run.log": "r", "junk/big.bin": "j", "top.txt": "t",
		"afile": "f",
	})
	if err := os.Symlink("/etc", filepath.Join(w.Root, "etc")); err != nil {
		t.Fatal(err)
	}
	var walked []string
	w.Backend = walkRecorder{Backend: w.Backend, walked: &walked}
	res, err := w.Export(context.Background(), ExportRequest{Destination: dest, Paths: []string{
		"out/**", "out/deep/*.log", "logs/*/run.log", "top.txt", "missing/**", "afile/*", "etc/**",
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(maps.Keys(res.Files))
	if want := []string{"logs/x/run.log", "out/a.txt", "out/deep/b.log", "top.txt"}; !slices.Equal(got, want) {
		t.Fatalf("exported %v, want %v", got, want)
	}
	if want := []string{"."}; !slices.Equal(walked, want) {
		// top.txt, a glob of one segment, reaches the root: one walk.
		t.Fatalf("walked %v, want %v", walked, want)
	}
	walked = walked[:0]
	if _, err := w.Export(context.Background(), ExportRequest{Destination: t.TempDir(), Paths: []string{"out/**", "logs/**"}}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"logs", "out"}; !slices.Equal(walked, want) {
		t.Fatalf("walked %v, want %v: junk/ must not be walked", walked, want)
	}
}

// Names a host cannot take as they are (a backslash, a newline, a terminal
// escape) are left out and listed; the rest of the export goes on.
func TestExportSkipsHostUnsafeNames(t *testing.T) {
	w, dest := exportFixture(t, map[string]string{
		"out/ok.txt": "ok", "out/back\\slash.txt": "b", "out/new\nline.txt": "n", "out/\x1b]0;PWNED\x07.txt": "e",
	})
	res, err := w.Export(context.Background(), ExportRequest{Paths: []string{"out/**"}, Destination: dest})
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(maps.Keys(res.Files)); !slices.Equal(got, []string{"out/ok.txt"}) {
		t.Fatalf("exported %v, want only out/ok.txt", got)
	}
	if want := []string{"out/\x1b]0;PWNED\x07.txt", "out/back\\slash.txt", "out/new\nline.txt"}; !slices.Equal(res.Skipped, want) {
		t.Fatalf("skipped %q, want %q", res.Skipped, want)
	}
	if got := dirEntries(t, dest); !slices.Equal(got, []string{"out", "out/ok.txt"}) {
		t.Fatalf("destination holds %q", got)
	}
}
