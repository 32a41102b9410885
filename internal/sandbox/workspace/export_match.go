package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/redact"
)

// maxListedNames bounds the names a NoMatchError lists.
const maxListedNames = 20

// NoMatchError is an export glob that matched no file.
type NoMatchError struct {
	// Glob is the glob as given.
	Glob string
	// Dir is the workspace-relative directory the glob looks in (its
	// segments before the first wildcard and the last one).
	Dir string
	// Missing is true when Dir does not exist (or is not a directory).
	Missing bool
	// Names lists what Dir holds (at most maxListedNames: files, and
	// directories with a trailing "/"), quoted as Go strings so that a
	// name an agent chose can neither break the message nor act on a
	// terminal; More counts the names left out.
	Names []string
	More  int
}

func (e *NoMatchError) Error() string {
	dir := strconv.Quote(e.Dir)
	switch {
	case e.Missing:
		return fmt.Sprintf("paths glob %q matched no file: directory %s does not exist in the workspace", e.Glob, dir)
	case len(e.Names) == 0:
		return fmt.Sprintf("paths glob %q matched no file: directory %s holds no files", e.Glob, dir)
	}
	more := ""
	if e.More > 0 {
		more = fmt.Sprintf(" and %d more", e.More)
	}
	return fmt.Sprintf("paths glob %q matched no file; directory %s holds: %s%s", e.Glob, dir, strings.Join(e.Names, ", "), more)
}

// TooFewFilesError is an export that matched fewer files than its minimum.
type TooFewFilesError struct {
	Found, Min int64
}

func (e *TooFewFilesError) Error() string {
	return fmt.Sprintf("the paths matched %d file(s), fewer than min_files = %d", e.Found, e.Min)
}

// LiteralGlob reports whether g names one path explicitly (no wildcard):
// the globs an export requires to match unless told otherwise.
func LiteralGlob(g string) bool { return !strings.ContainsAny(g, "*?[\\") }

// checkMatches enforces req.Require and req.MinFiles on the files found.
func (w *Workspace) checkMatches(ctx context.Context, req ExportRequest, tree []backend.TreeFile) error {
	for _, g := range req.Require {
		found := false
		for _, f := range tree {
			if matchAny([]string{g}, f.Rel) {
				found = true
				break
			}
		}
		if !found {
			return w.noMatch(ctx, g)
		}
	}
	if n := int64(len(tree)); n < req.MinFiles {
		return &TooFewFilesError{Found: n, Min: req.MinFiles}
	}
	return nil
}

// noMatch describes glob's directory for a NoMatchError. It only reads.
func (w *Workspace) noMatch(ctx context.Context, glob string) error {
	segs := strings.Split(path.Clean(glob), "/")
	n := 0
	for n < len(segs)-1 && !strings.ContainsAny(segs[n], "*?[\\") {
		n++
	}
	dir := path.Join(append([]string{"."}, segs[:n]...)...)
	e := &NoMatchError{Glob: glob, Dir: dir}
	if dir != "." {
		info, err := w.Backend.Stat(ctx, dir)
		switch {
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, backend.ErrEscapesRoot) || err == nil && !info.IsDir:
			e.Missing = true
			return e
		case err != nil:
			return fmt.Errorf("%s (listing %q: %w)", e.Error(), dir, err)
		}
	}
	files, err := w.Backend.WalkFiles(ctx, dir)
	if err != nil {
		return fmt.Errorf("%s (listing %q: %w)", e.Error(), dir, err)
	}
	var names []string
	for _, f := range files {
		name, rest, deeper := strings.Cut(f.Rel, "/")
		if deeper && rest != "" {
			name += "/"
		}
		if len(names) == 0 || names[len(names)-1] != name {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	for _, name := range names[:min(len(names), maxListedNames)] {
		e.Names = append(e.Names, strconv.Quote(redact.WriteOnly(name)))
	}
	e.More = len(names) - len(e.Names)
	return e
}
