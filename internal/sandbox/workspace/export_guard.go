package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

// ExportConflictError refuses an export whose target paths already hold
// something the export did not write.
type ExportConflictError struct {
	Destination string
	Paths       []string
}

func (e *ExportConflictError) Error() string {
	return fmt.Sprintf("%s already holds %s, which this export did not write (or which changed since); "+
		"an export never replaces a host file: move it away, or choose another destination",
		e.Destination, strings.Join(e.Paths, ", "))
}

// ExportConflicts lists, without writing anything, the target paths of an
// export of w to req.Destination that already hold something other than
// ours (path → SHA-256 of files a previous export wrote, which are removed
// before it runs again). A missing destination has none.
func (w *Workspace) ExportConflicts(ctx context.Context, req ExportRequest, ours map[string]string) error {
	tree, err := w.exportTree(ctx, req.Paths)
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(w.eng.HostPath(req.Destination))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer root.Close()
	return exportConflicts(root, req.Destination, tree, ours)
}

func exportConflicts(root *os.Root, destination string, tree []backend.TreeFile, ours map[string]string) error {
	var taken []string
	for _, f := range tree {
		_, err := root.Lstat(f.Rel)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if want, ok := ours[f.Rel]; ok && err == nil && hashInRoot(root, f.Rel) == want {
			continue
		}
		taken = append(taken, f.Rel)
	}
	if len(taken) == 0 {
		return nil
	}
	sort.Strings(taken)
	return &ExportConflictError{Destination: destination, Paths: taken}
}

// mkdirsInRoot creates dir and its missing parents below root and returns
// those it created, parents first.
func mkdirsInRoot(root *os.Root, dir string) ([]string, error) {
	if dir == "." {
		return nil, nil
	}
	var made []string
	segs := strings.Split(dir, "/")
	for i := range segs {
		d := path.Join(segs[:i+1]...)
		err := root.Mkdir(d, 0o755)
		if err == nil {
			made = append(made, d)
			continue
		}
		if fi, serr := root.Stat(d); serr != nil || !fi.IsDir() {
			return made, err
		}
	}
	return made, nil
}

// placeNoReplace gives the written file tmp its final name rel only if
// nothing is there: a hard link fails on an existing name, atomically.
// Where hard links are not supported, the name is checked just before a
// rename.
func placeNoReplace(root *os.Root, tmp, rel string) error {
	switch err := root.Link(tmp, rel); {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrExist):
		return &ExportConflictError{Paths: []string{rel}}
	}
	if _, serr := root.Lstat(rel); !errors.Is(serr, fs.ErrNotExist) {
		return &ExportConflictError{Paths: []string{rel}}
	}
	return root.Rename(tmp, rel)
}
