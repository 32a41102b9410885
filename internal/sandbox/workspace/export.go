package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/redact"
)

// ExportRequest copies a whitelist of workspace files to a host directory.
type ExportRequest struct {
	// Paths are workspace-relative globs: path.Match patterns per segment,
	// plus "**" for any number of segments ("output/**", "logs/*.log").
	Paths []string
	// Destination is the host directory, relative to the working directory
	// unless absolute; created (0755) when missing.
	Destination string
	// Limits bound the bytes (holes of sparse files not counted) and the
	// files written; zero bounds are the defaults.
	Limits sandbox.OutputLimits
	// Require lists the globs (of Paths) that must each match at least
	// one file, else the export fails with a *NoMatchError before writing
	// anything.
	Require []string
	// MinFiles is the fewest files the export must write (0: none).
	MinFiles int64
	// AllowSecrets lets files holding a write-only value the provider was
	// given be exported; by default such a file fails the export with a
	// *redact.SecretFileError before it is placed.
	AllowSecrets bool
}

// ExportResult is what an export wrote: path → SHA-256 (hex) of each file,
// and the directories below the destination it created (parents first).
type ExportResult struct {
	Files map[string]string
	Dirs  []string
	// Skipped lists the matching files left out because their names cannot
	// be written on the host as they are (a backslash, a control
	// character), for the caller to warn about.
	Skipped []string
}

// Export copies every regular file of w matching req.Paths to the same
// relative path below req.Destination. Symlinks in the workspace are never
// followed (a symlink matching a glob is skipped, and the walk does not
// descend into one); below the destination, every component is resolved
// without leaving it (os.Root). Nothing already at a target path is
// replaced: every target is checked before the first is written (an
// *ExportConflictError names them), and each file is written to a
// temporary name and linked into place only if its path is still free, so
// a file is either the whole export or untouched. More files or data bytes
// than req.Limits allow fail with a *sandbox.LimitError; what was written
// until then is in the result, for the caller to remove.
//
// Before anything is written, every glob of req.Require must match a file
// (else a *NoMatchError) and at least req.MinFiles files must match (else
// a *TooFewFilesError).
//
// A backend that streams an archive (backend.ExportArchiver) sends every
// file in one stream, holes of sparse files left out and recreated as
// holes; otherwise each file is read on its own.
func (w *Workspace) Export(ctx context.Context, req ExportRequest) (ExportResult, error) {
	res := ExportResult{Files: map[string]string{}}
	limits := req.Limits.WithDefaults()
	tree, err := w.exportTree(ctx, req.Paths)
	if err != nil {
		return res, err
	}
	tree, res.Skipped = splitHostUnsafe(tree)
	if err := w.checkMatches(ctx, req, tree); err != nil {
		return res, err
	}
	if int64(len(tree)) > limits.MaxFiles {
		return res, &sandbox.LimitError{Op: "export", Limit: "max_files", Value: limits.MaxFiles, Path: tree[limits.MaxFiles].Rel}
	}
	dest := w.eng.HostPath(req.Destination)
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return res, err
	}
	root, err := os.OpenRoot(dest)
	if err != nil {
		return res, err
	}
	defer root.Close()
	if err := exportConflicts(root, req.Destination, tree, nil); err != nil {
		return res, err
	}
	x := &exporter{root: root, res: &res, budget: limits.MaxBytes, limits: limits,
		secrets: redact.NewSecretScanner("export", writeOnlyGate(req.AllowSecrets))}
	if a, ok := w.Backend.(backend.ExportArchiver); ok {
		err = x.archive(ctx, a, tree)
	} else if reader, ok := w.Backend.(backend.FileReader); ok {
		err = x.each(ctx, reader, tree)
	} else {
		return res, fmt.Errorf("workspace %s cannot read files", w.ID)
	}
	var conflict *ExportConflictError
	var limit *sandbox.LimitError
	switch {
	case err == nil:
	case errors.As(err, &conflict):
		conflict.Destination = req.Destination
	case errors.As(err, &limit):
	case errors.As(err, new(*redact.SecretFileError)):
	case x.at != "":
		err = fmt.Errorf("exporting %s from workspace %s to %s: %w", x.at, w.ID, req.Destination, err)
	default:
		err = fmt.Errorf("exporting from workspace %s to %s: %w", w.ID, req.Destination, err)
	}
	return res, err
}

// exportTree lists the regular files of w matching globs. Only the
// directories the globs can reach are walked (and hashed): what an agent
// leaves beside them costs nothing. A root that is missing, a symlink or
// not a directory holds nothing to export, as a full walk would find.
func (w *Workspace) exportTree(ctx context.Context, globs []string) ([]backend.TreeFile, error) {
	var out []backend.TreeFile
	for _, dir := range walkRoots(globs) {
		if dir != "." {
			info, err := w.Backend.Stat(ctx, dir)
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, backend.ErrEscapesRoot) || (err == nil && !info.IsDir) {
				continue
			}
			if err != nil {
				return nil, err
			}
		}
		tree, err := w.Backend.WalkFiles(ctx, dir)
		if err != nil {
			return nil, err
		}
		for _, f := range tree {
			f.Rel = path.Join(dir, f.Rel)
			if f.SHA256 != "" && matchAny(globs, f.Rel) { // not a symlink, and asked for
				out = append(out, f)
			}
		}
	}
	slices.SortFunc(out, func(a, b backend.TreeFile) int { return strings.Compare(a.Rel, b.Rel) })
	return out, nil
}

// splitHostUnsafe separates the files whose names a host cannot take as
// they are: a backslash (a separator on Windows, refused by archives) or a
// control character (a newline or a terminal escape in every listing of the
// destination).
func splitHostUnsafe(tree []backend.TreeFile) (safe []backend.TreeFile, skipped []string) {
	for _, f := range tree {
		if strings.ContainsFunc(f.Rel, func(r rune) bool { return r == '\\' || r < 0x20 || r == 0x7f }) {
			skipped = append(skipped, f.Rel)
			continue
		}
		safe = append(safe, f)
	}
	return safe, skipped
}

// walkRoots returns the directories to walk for globs: each glob's
// segments before its first wildcard and before its last segment, with
// no directory listed below another one already listed.
func walkRoots(globs []string) []string {
	var roots []string
	for _, g := range globs {
		segs := strings.Split(path.Clean(g), "/")
		n := 0
		for n < len(segs)-1 && !strings.ContainsAny(segs[n], "*?[\\") {
			n++
		}
		roots = append(roots, path.Join(append([]string{"."}, segs[:n]...)...))
	}
	slices.Sort(roots)
	var out []string
	for _, r := range roots {
		covered := false
		for _, o := range out {
			if o == "." || r == o || strings.HasPrefix(r, o+"/") {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, r)
		}
	}
	return out
}

// ExportState reports which exported files are still at the destination
// with the bytes written (path → true; a missing destination has none).
// It only reads.
func (e *Engine) ExportState(destination string, files map[string]string) (map[string]bool, error) {
	ok := map[string]bool{}
	root, err := os.OpenRoot(e.HostPath(destination))
	if errors.Is(err, fs.ErrNotExist) {
		for rel := range files {
			ok[rel] = false
		}
		return ok, nil
	}
	if err != nil {
		return nil, err
	}
	defer root.Close()
	for rel, want := range files {
		ok[rel] = hashInRoot(root, rel) == want
	}
	return ok, nil
}

func hashInRoot(root *os.Root, rel string) string {
	if fi, err := root.Lstat(rel); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	f, err := root.Open(rel)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// RemoveExport removes the exported files that still hold the bytes
// written, then those of dirs (the directories the export created) left
// empty; other files are left in place and listed in the result.
func (e *Engine) RemoveExport(destination string, files map[string]string, dirs []string) ([]string, error) {
	root, err := os.OpenRoot(e.HostPath(destination))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var kept []string
	for rel, want := range files {
		switch hashInRoot(root, rel) {
		case want:
			if err := root.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return kept, err
			}
		case "":
		default:
			kept = append(kept, rel)
		}
	}
	ordered := append([]string(nil), dirs...)
	sort.Slice(ordered, func(i, j int) bool { return strings.Count(ordered[i], "/") > strings.Count(ordered[j], "/") })
	for _, d := range ordered {
		_ = root.Remove(d) // fails, harmlessly, on a directory that holds other files
	}
	sort.Strings(kept)
	return kept, nil
}

// matchAny reports whether rel matches one of the globs.
func matchAny(globs []string, rel string) bool {
	for _, g := range globs {
		if matchGlob(strings.Split(path.Clean(g), "/"), strings.Split(rel, "/")) {
			return true
		}
	}
	return false
}

// matchGlob matches path segments against pattern segments, "**" standing
// for any number of segments (none included).
func matchGlob(pat, segs []string) bool {
	if len(pat) == 0 {
		return len(segs) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(segs); i++ {
			if matchGlob(pat[1:], segs[i:]) {
				return true
			}
		}
		return false
	}
	if len(segs) == 0 {
		return false
	}
	if ok, err := path.Match(pat[0], segs[0]); err != nil || !ok {
		return false
	}
	return matchGlob(pat[1:], segs[1:])
}

// ValidGlob checks an export glob: workspace-relative, no "..", a valid
// pattern.
func ValidGlob(g string) error {
	switch c := path.Clean(g); {
	case g == "" || strings.HasPrefix(g, "/"):
		return fmt.Errorf("%q must be a workspace-relative glob", g)
	case c == ".." || strings.HasPrefix(c, "../") || strings.Contains(c, "/../"):
		return fmt.Errorf("%q must not hold a .. segment climbing out of the workspace", g)
	}
	if _, err := path.Match(g, ""); err != nil {
		return fmt.Errorf("%q is not a valid glob: %w", g, err)
	}
	return nil
}
