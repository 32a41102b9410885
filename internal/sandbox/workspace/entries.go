package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"syscall"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/progress"
)

// Meta is the metadata the Python SDK applies after materialising an entry
// (design/sdk-model.md §2.1): an optional group (chgrp first) and the permission bits
// (chmod always, so the umask never decides the result). Owner is this
// provider's addition, applied with the group, before the chmod.
type Meta struct {
	// Perm holds the permission bits (0o777 mask).
	Perm fs.FileMode
	// Group is the group name to chgrp to, or "" to leave the group alone.
	Group string
	// Owner is the user name or decimal uid to chown to, or "" to leave the
	// owner alone.
	Owner string
	// FilePerm is the mode of every file of a copied tree (a local_dir
	// copy): the Python SDK writes them 0644 (SDKCopiedFilePerm); 0 keeps
	// each file's source bits.
	FilePerm fs.FileMode
}

// SDKCopiedFilePerm is the mode the Python SDK's writes give the files of a
// local_dir copy (a new file, umask 022), whatever their source mode.
const SDKCopiedFilePerm fs.FileMode = 0o644

// ImplicitDirPerm is the mode of a directory created only because an entry
// lies below it (mkdir -p under umask 022, as the Python SDK): the entry's
// own permissions apply to the entry alone.
const ImplicitDirPerm fs.FileMode = 0o755

// copiedPerm is the mode a copied file whose source mode is src gets.
func (m Meta) copiedPerm(src fs.FileMode) fs.FileMode {
	if m.FilePerm != 0 {
		return m.FilePerm
	}
	return src
}

// mkdirEntry creates the directory rel with perm and its missing parents
// with ImplicitDirPerm.
func mkdirEntry(ctx context.Context, b backend.Backend, rel string, perm fs.FileMode) error {
	if parent := parentDir(rel); parent != "." {
		if err := b.MkdirAll(ctx, parent, ImplicitDirPerm); err != nil {
			return err
		}
	}
	return b.MkdirAll(ctx, rel, perm)
}

// EntryState is what Read sees of one entry path in a workspace.
type EntryState struct {
	// Exists is false when nothing is at the path.
	Exists bool
	// Info is the backend's view of the path (valid when Exists).
	Info backend.FileInfo
	// SHA256 and Size describe a regular file's content when hashing was
	// asked for.
	SHA256 string
	Size   int64
	// OwnerBelow and GroupBelow are, for a copied directory, the decimal
	// uid and gid of the first file below it (in path order) whose owner or
	// group differs from the directory's own; "" when all match.
	OwnerBelow, GroupBelow string
}

// applyMeta runs chown/chgrp (when an owner or group is set) then chmod, as
// the Python SDK does; a failing chown or chgrp prevents the chmod.
func applyMeta(ctx context.Context, b backend.Backend, rel string, m Meta) error {
	return applyMetaTree(ctx, b, rel, m, false)
}

// applyMetaTree is applyMeta that, with tree, gives every directory and
// file below rel the owner and group too (a copied tree, which the agent
// owning it must be able to write); the chmod still applies to rel only.
func applyMetaTree(ctx context.Context, b backend.Backend, rel string, m Meta, tree bool) error {
	switch {
	case m.Owner != "" || (tree && m.Group != ""):
		if err := b.Chown(ctx, rel, m.Owner, m.Group, tree); err != nil {
			return err
		}
	case m.Group != "":
		if err := b.Chgrp(ctx, rel, m.Group); err != nil {
			return err
		}
	}
	return b.Chmod(ctx, rel, m.Perm)
}

// Stat reports the state of rel in the workspace without following a final
// symlink; hash asks for the content hash of a regular file.
func (w *Workspace) Stat(ctx context.Context, rel string, hash bool) (EntryState, error) {
	info, sum, size, hashed, err := w.statHash(ctx, rel, hash)
	if errors.Is(err, backend.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		// A parent replaced by a file counts as missing, as a deletion.
		return EntryState{}, nil
	}
	if err != nil {
		return EntryState{}, err
	}
	st := EntryState{Exists: true, Info: info, Size: info.Size}
	if hash && info.IsRegular {
		if !hashed {
			if sum, size, err = w.Backend.HashFile(ctx, rel); err != nil {
				return EntryState{}, err
			}
		}
		st.SHA256, st.Size = sum, size
	}
	return st, nil
}

// ApplyDir creates the directory rel (mkdir -p: missing parents get
// ImplicitDirPerm) and applies its metadata, following the Python SDK's Dir
// apply (design/sdk-model.md §2.3).
func (w *Workspace) ApplyDir(ctx context.Context, rel string, m Meta) error {
	if done, err := w.mkdirEntryMeta(ctx, rel, m); done {
		return err
	}
	_, statErr := w.Backend.Stat(ctx, rel)
	if err := mkdirEntry(ctx, w.Backend, rel, m.Perm); err != nil {
		return err
	}
	if err := applyMeta(ctx, w.Backend, rel, m); err != nil {
		if errors.Is(statErr, backend.ErrNotExist) {
			_ = w.Backend.Remove(ctx, rel) // created just now: leave nothing untracked behind
		}
		return err
	}
	return nil
}

// ApplyMeta re-applies only the metadata of rel (an in-place update of
// permissions or group).
func (w *Workspace) ApplyMeta(ctx context.Context, rel string, m Meta) error {
	return applyMeta(ctx, w.Backend, rel, m)
}

// RemoveDir removes the directory rel if it is empty. A directory that
// holds content the resource did not write is left in place and a warning
// naming it is returned. A vanished directory is not an error.
func (w *Workspace) RemoveDir(ctx context.Context, rel string) (warning string, err error) {
	if rel == "." {
		return "", nil
	}
	files, err := w.Backend.WalkFiles(ctx, rel)
	if errors.Is(err, backend.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if len(files) > 0 {
		return leftInPlace(w.AbsPath(rel), len(files)), nil
	}
	return "", w.Backend.RemoveAll(ctx, rel)
}

// leftInPlace is the warning for a directory kept because it holds n files
// the resource did not write.
func leftInPlace(abs string, n int) string {
	return fmt.Sprintf("%s holds %d file(s) that this resource did not write, so it was left in place "+
		"(destroying its workspace removes it too)", abs, n)
}

// WriteFile streams r into rel atomically, then applies the metadata. When
// wantSHA256 is set, content that hashes differently is refused before it
// lands (an error wrapping ErrContentChanged).
func (w *Workspace) WriteFile(ctx context.Context, rel string, r io.Reader, m Meta, wantSHA256 string) (sandbox.WriteResult, error) {
	if res, done, err := w.writeFileMeta(ctx, rel, r, m, wantSHA256); done {
		return res, err
	}
	_, statErr := w.Backend.Stat(ctx, rel)
	res, err := w.Backend.WriteFile(ctx, rel, r, m.Perm, wantSHA256)
	if err != nil {
		return res, err
	}
	if err := applyMeta(ctx, w.Backend, rel, m); err != nil {
		if errors.Is(statErr, backend.ErrNotExist) {
			_ = w.Backend.Remove(ctx, rel) // created just now: leave nothing untracked behind
		}
		return res, err
	}
	rememberWritten(ctx, w.Backend, rel)
	return res, nil
}

// ErrEscapesRoot is wrapped when a symlink inside the workspace stands
// where an entry or one of its parents should be; it is never followed.
var ErrEscapesRoot = backend.ErrEscapesRoot

// ErrContentChanged is wrapped when written content does not hash to the
// digest the plan showed; nothing was written.
var ErrContentChanged = backend.ErrContentChanged

// CopyHostFile copies the host source src (confined and opened as the
// Python SDK's LocalFile, design/sdk-model.md §2.4) into rel. wantSHA256 is the digest taken at
// plan time: a source edited since then fails with an error wrapping
// ErrSourceChanged and leaves the workspace untouched.
func (w *Workspace) CopyHostFile(ctx context.Context, rel, src string, m Meta, wantSHA256 string) (sandbox.WriteResult, error) {
	f, fi, err := w.eng.HostSources().OpenFile(ctx, src)
	if err != nil {
		return sandbox.WriteResult{}, err
	}
	defer f.Close()
	prog := progress.Start(ctx, "copy", src, 1, fi.Size())
	res, err := w.WriteFile(ctx, rel, prog.Reader(f), m, wantSHA256)
	if err == nil {
		prog.Add(1, 0)
		prog.Finish(true)
	}
	if errors.Is(err, backend.ErrContentChanged) {
		return res, fmt.Errorf("host source %s changed between plan and apply (planned sha256 %s): %w: %w", src, wantSHA256, ErrSourceChanged, err)
	}
	return res, err
}

// RemoveFile deletes the file rel. A missing file is not an error.
func (w *Workspace) RemoveFile(ctx context.Context, rel string) error {
	return w.Backend.Remove(ctx, rel)
}
