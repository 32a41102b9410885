package workspace

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"syscall"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

// PathType is what an entry makes at its path.
type PathType int

// The types of entry paths.
const (
	// PathFile is a regular file (sandbox_file, the manifest's file and
	// local_file).
	PathFile PathType = iota
	// PathDir is a directory (sandbox_dir, sandbox_local_dir, the
	// manifest's dir and local_dir).
	PathDir
)

func (k PathType) String() string {
	if k == PathDir {
		return "a directory"
	}
	return "a regular file"
}

// ObstructionError says that something the provider did not write stands
// where an entry goes: its path holds another type of file (a directory
// where a file goes, a file where a directory goes, a symlink), or one of
// its parents is not a directory. The provider does not remove it to make
// room for a new entry; the user does (an entry already written is
// replaced instead: see Taken and ClearTaken).
type ObstructionError struct {
	// Entry is the entry's workspace-relative path; Path is where the
	// obstruction is (Entry itself or one of its parents).
	Entry, Path string
	// Found describes what is at Path ("a directory", "a symlink", ...).
	Found string
	// Want is what the entry makes at Entry.
	Want PathType
}

// Error names the path, what is there now and how to resolve it.
func (e *ObstructionError) Error() string {
	where := e.Path + " is " + e.Found + ", where this entry makes " + e.Want.String()
	if e.Path != e.Entry {
		where = e.Path + ", a parent directory of " + e.Entry + ", is " + e.Found + " now"
	}
	msg := where + ". The provider did not write it and does not remove it to make room: move or delete it in the " +
		"workspace (or choose another path), then plan again."
	if e.Found == foundSymlink {
		msg += " (" + backend.ErrEscapesRoot.Error() + ": a symlink in a workspace path is never followed.)"
	}
	return msg
}

// Unwrap gives backend.ErrEscapesRoot for a symlink in the way.
func (e *ObstructionError) Unwrap() error {
	if e.Found == foundSymlink {
		return backend.ErrEscapesRoot
	}
	return nil
}

const foundSymlink = "a symlink"

// CheckEntryPath observes what is at rel, changing nothing, and returns an
// *ObstructionError when an entry of kind want cannot be applied there.
// Nothing at rel and what want names are fine.
func (w *Workspace) CheckEntryPath(ctx context.Context, rel string, want PathType) error {
	return checkEntryPath(ctx, w.Backend, rel, want)
}

func checkEntryPath(ctx context.Context, b backend.Backend, rel string, want PathType) error {
	info, err := b.Stat(ctx, rel)
	switch {
	case errors.Is(err, backend.ErrNotExist):
		return nil
	case errors.Is(err, syscall.ENOTDIR) || errors.Is(err, backend.ErrEscapesRoot):
		return parentObstruction(ctx, b, rel, want, err)
	case err != nil:
		return err
	}
	if (want == PathFile && info.IsRegular) || (want == PathDir && info.IsDir) {
		return nil
	}
	return &ObstructionError{Entry: rel, Path: rel, Found: describe(info), Want: want}
}

// parentObstruction finds the parent of rel that is not a directory.
func parentObstruction(ctx context.Context, b backend.Backend, rel string, want PathType, cause error) error {
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		p := path.Join(parts[:i]...)
		info, err := b.Stat(ctx, p)
		if err != nil {
			break
		}
		if !info.IsDir {
			return &ObstructionError{Entry: rel, Path: p, Found: describe(info), Want: want}
		}
	}
	return cause
}

func describe(info backend.FileInfo) string {
	switch {
	case info.IsSymlink:
		return foundSymlink
	case info.IsDir:
		return "a directory"
	case info.IsRegular:
		return fmt.Sprintf("a regular file (%d bytes)", info.Size)
	}
	return "a special file (a device, socket or FIFO)"
}

// CheckManifestPaths is CheckEntryPath for every entry of a manifest plan,
// in walk order; it returns the obstructions found, joined.
func (w *Workspace) CheckManifestPaths(ctx context.Context, p *ManifestPlan) error {
	var (
		errs    []error
		blocked []string
	)
	for _, pe := range p.Entries {
		if pe.Path == "." || under(pe.Path, blocked) {
			continue
		}
		want := PathDir
		if pe.Entry.Type == "file" || pe.Entry.Type == "local_file" {
			want = PathFile
		}
		if err := checkEntryPath(ctx, w.Backend, pe.Path, want); err != nil {
			errs = append(errs, err)
			var oe *ObstructionError
			if errors.As(err, &oe) {
				blocked = append(blocked, oe.Path) // its children say the same
			}
		}
	}
	return errors.Join(errs...)
}

// under reports whether p lies below one of dirs.
func under(p string, dirs []string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// Taken is what stands where an entry goes in place of what the entry
// makes (see Workspace.Taken).
type Taken struct {
	// Entry is the entry's path; Path is what is in the way (Entry or one
	// of its parents).
	Entry, Path string
	// Found describes what is at Path ("a directory", "a symlink", ...).
	Found string
	// Files counts what clearing Path removes: the regular files below a
	// directory, 1 for anything else.
	Files int
}

// Taken observes, changing nothing, whether something other than an entry
// of kind want stands at rel or at one of its parents inside the
// workspace, and what: nil when rel holds what want names or nothing.
func (w *Workspace) Taken(ctx context.Context, rel string, want PathType) (*Taken, error) {
	err := checkEntryPath(ctx, w.Backend, rel, want)
	var oe *ObstructionError
	if !errors.As(err, &oe) {
		return nil, err
	}
	t := &Taken{Entry: rel, Path: oe.Path, Found: oe.Found, Files: 1}
	if oe.Found == "a directory" {
		files, err := w.Backend.WalkFiles(ctx, oe.Path)
		if err != nil {
			return nil, fmt.Errorf("counting the files of %s: %w", oe.Path, err)
		}
		t.Files = len(files)
	}
	return t, nil
}

// ClearTaken removes, without following a symlink, what stands at rel or
// at one of its parents in place of an entry of kind want (as Taken finds
// it now), so the entry can be written there. It never reaches outside the
// workspace; nothing in the way is not an error.
func (w *Workspace) ClearTaken(ctx context.Context, rel string, want PathType) error {
	err := checkEntryPath(ctx, w.Backend, rel, want)
	var oe *ObstructionError
	if !errors.As(err, &oe) {
		return err
	}
	if err := w.Backend.RemoveAll(ctx, oe.Path); err != nil {
		return fmt.Errorf("removing %s, which stood where %s goes: %w", oe.Path, rel, err)
	}
	return nil
}
