package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exportFixture is a local workspace holding files (path → content) and a
// host destination directory.
func exportFixture(t *testing.T, files map[string]string) (*Workspace, string) {
	t.Helper()
	eng, _ := newEngine(t)
	w, err := eng.CreateLocal(context.Background(), LocalSpec{})
	if err != nil {
		t.Fatal(err)
	}
	for rel, body := range files {
		writeFile(t, filepath.Join(w.Root, rel), body)
	}
	return w, filepath.Join(t.TempDir(), "dest")
}

func writeFile(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readBack(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func TestExportRefusesHostFileItDidNotWrite(t *testing.T) {
	w, dest := exportFixture(t, map[string]string{"out/r.txt": "new\n", "out/a.txt": "a\n"})
	writeFile(t, filepath.Join(dest, "out/r.txt"), "MY PRECIOUS HOST DATA")
	req := ExportRequest{Paths: []string{"out/**"}, Destination: dest}
	var conflict *ExportConflictError
	if err := w.ExportConflicts(context.Background(), req, nil); !errors.As(err, &conflict) || strings.Join(conflict.Paths, ",") != "out/r.txt" {
		t.Fatalf("ExportConflicts = %v", err)
	}
	res, err := w.Export(context.Background(), req)
	if !errors.As(err, &conflict) || !strings.Contains(err.Error(), "out/r.txt") || !strings.Contains(err.Error(), "move it away") {
		t.Fatalf("Export = %v", err)
	}
	if len(res.Files) != 0 || len(res.Dirs) != 0 {
		t.Fatalf("a refused export wrote %+v", res)
	}
	if got := readBack(t, filepath.Join(dest, "out/r.txt")); got != "MY PRECIOUS HOST DATA" {
		t.Fatalf("host file now holds %q", got)
	}
	if _, err := os.Lstat(filepath.Join(dest, "out/a.txt")); !os.IsNotExist(err) {
		t.Fatalf("a refused export wrote out/a.txt: %v", err)
	}
}

func TestExportConflictsKnowsItsOwnFiles(t *testing.T) {
	w, dest := exportFixture(t, map[string]string{"out/a.txt": "a\n"})
	req := ExportRequest{Paths: []string{"out/**"}, Destination: dest}
	res, err := w.Export(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.ExportConflicts(context.Background(), req, res.Files); err != nil {
		t.Fatalf("its own unchanged files conflict: %v", err)
	}
	writeFile(t, filepath.Join(dest, "out/a.txt"), "EDITED\n")
	var conflict *ExportConflictError
	if err := w.ExportConflicts(context.Background(), req, res.Files); !errors.As(err, &conflict) {
		t.Fatalf("an edited copy does not conflict: %v", err)
	}
	if kept, err := w.eng.RemoveExport(dest, res.Files, res.Dirs); err != nil || strings.Join(kept, ",") != "out/a.txt" {
		t.Fatalf("RemoveExport = %v, %v", kept, err)
	}
	if got := readBack(t, filepath.Join(dest, "out/a.txt")); got != "EDITED\n" {
		t.Fatalf("the edited copy now holds %q", got)
	}
}

func TestRemoveExportRemovesOnlyDirectoriesItCreated(t *testing.T) {
	w, dest := exportFixture(t, map[string]string{"keep/x.txt": "x", "new/deep/y.txt": "y"})
	if err := os.MkdirAll(filepath.Join(dest, "keep"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := w.Export(context.Background(), ExportRequest{Paths: []string{"**"}, Destination: dest})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Dirs, ",") != "new,new/deep" {
		t.Fatalf("created dirs = %v", res.Dirs)
	}
	if kept, err := w.eng.RemoveExport(dest, res.Files, res.Dirs); err != nil || len(kept) != 0 {
		t.Fatalf("RemoveExport = %v, %v", kept, err)
	}
	if fi, err := os.Stat(filepath.Join(dest, "keep")); err != nil || !fi.IsDir() {
		t.Fatalf("the pre-existing empty directory was removed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dest, "new")); !os.IsNotExist(err) {
		t.Fatalf("the created directory was left: %v", err)
	}
}

func TestPlaceNoReplaceKeepsAFileThatAppeared(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "tmp"), "export")
	writeFile(t, filepath.Join(dir, "r.txt"), "raced in")
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var conflict *ExportConflictError
	if err := placeNoReplace(root, "tmp", "r.txt"); !errors.As(err, &conflict) {
		t.Fatalf("placeNoReplace = %v", err)
	}
	if got := readBack(t, filepath.Join(dir, "r.txt")); got != "raced in" {
		t.Fatalf("r.txt now holds %q", got)
	}
	if err := placeNoReplace(root, "tmp", "free.txt"); err != nil || readBack(t, filepath.Join(dir, "free.txt")) != "export" {
		t.Fatalf("placeNoReplace on a free name = %v", err)
	}
}
