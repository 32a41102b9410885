package workspace

import (
	"context"
	"io"
	"io/fs"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

// Backends whose every call is a round trip to a daemon (a process started
// in a container) take an entry's steps in one call each: the stat and the
// digest of a refresh, the write and the metadata of a file, the mkdir and
// the metadata of a directory. Each does exactly what the engine's steps
// do one call at a time (design/performance.md, Docker).
type (
	statHasher interface {
		StatHash(ctx context.Context, rel string) (backend.FileInfo, string, int64, error)
	}
	metaWriter interface {
		WriteFileMeta(ctx context.Context, rel string, r io.Reader, perm fs.FileMode, owner, group, wantSHA256 string) (sandbox.WriteResult, error)
	}
	entryDirMaker interface {
		MkdirEntry(ctx context.Context, rel string, perm fs.FileMode, owner, group string) error
	}
)

// statHash stats rel and, when hash is set and the backend can, digests a
// regular file in the same call (hashed says it did).
func (w *Workspace) statHash(ctx context.Context, rel string, hash bool) (info backend.FileInfo, sum string, size int64, hashed bool, err error) {
	if sh, ok := w.Backend.(statHasher); ok && hash {
		info, sum, size, err = sh.StatHash(ctx, rel)
		return info, sum, size, err == nil && info.IsRegular, err
	}
	info, err = w.Backend.Stat(ctx, rel)
	return info, "", 0, false, err
}

// writeFileMeta is WriteFile in one backend call, when the backend can.
func (w *Workspace) writeFileMeta(ctx context.Context, rel string, r io.Reader, m Meta, wantSHA256 string) (sandbox.WriteResult, bool, error) {
	mw, ok := w.Backend.(metaWriter)
	if !ok {
		return sandbox.WriteResult{}, false, nil
	}
	res, err := mw.WriteFileMeta(ctx, rel, r, m.Perm, m.Owner, m.Group, wantSHA256)
	return res, true, err
}

// mkdirEntryMeta is ApplyDir in one backend call, when the backend can.
func (w *Workspace) mkdirEntryMeta(ctx context.Context, rel string, m Meta) (bool, error) {
	dm, ok := w.Backend.(entryDirMaker)
	if !ok {
		return false, nil
	}
	return true, dm.MkdirEntry(ctx, rel, m.Perm, m.Owner, m.Group)
}
