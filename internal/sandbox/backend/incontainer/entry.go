package incontainer

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
)

// Each container round trip is a process started in it, so the engine's
// entry steps that would take several (stat then hash; stat, write, chgrp
// and chmod; mkdir -p, chgrp and chmod) are one helper process each here.

// StatHash describes rel and, when it is a regular file, returns the
// SHA-256 and size of its content, in one helper process.
func (w *Workspace) StatHash(ctx context.Context, rel string) (backend.FileInfo, string, int64, error) {
	r, err := w.helper(ctx, fshelper.OpStat, rel, fshelper.StatHash, nil)
	if err != nil {
		return backend.FileInfo{}, "", 0, err
	}
	if r.Info == nil {
		return backend.FileInfo{}, "", 0, fmt.Errorf("stat %s: the file helper returned no information", rel)
	}
	return *r.Info, r.SHA256, r.Size, nil
}

// entryMeta is the helper's form of an entry's metadata.
func entryMeta(perm fs.FileMode, owner, group string) fshelper.EntryMeta {
	return fshelper.EntryMeta{Perm: uint32(perm), Owner: owner, Group: group}
}

// WriteFileMeta is WriteFile followed by the entry's metadata (chown when
// owner is set, else chgrp when group is, then chmod to perm) in the same
// helper process; a file this call created is removed again when its
// metadata cannot be applied.
func (w *Workspace) WriteFileMeta(ctx context.Context, rel string, r io.Reader, perm fs.FileMode, owner, group, wantSHA256 string) (sandbox.WriteResult, error) {
	meta, err := json.Marshal(entryMeta(perm, owner, group))
	if err != nil {
		return sandbox.WriteResult{}, err
	}
	return w.writeOne(ctx, rel, r, perm, wantSHA256, map[string]string{fshelper.PAXMeta: string(meta)})
}

// MkdirEntry makes the directory entry rel as the engine's ApplyDir does
// (missing parents 0755, rel with perm, then chown or chgrp and chmod), in
// one helper process; a directory this call created is removed again when
// its metadata cannot be applied.
func (w *Workspace) MkdirEntry(ctx context.Context, rel string, perm fs.FileMode, owner, group string) error {
	meta, err := json.Marshal(entryMeta(perm, owner, group))
	if err != nil {
		return err
	}
	_, err = w.helper(ctx, fshelper.OpMkEntry, rel, string(meta), nil)
	return err
}
