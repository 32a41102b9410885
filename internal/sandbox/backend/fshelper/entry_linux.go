//go:build linux

package fshelper

import (
	"archive/tar"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/local"
)

// implicitDirPerm is the mode of a parent directory created only because
// an entry lies below it (mkdir -p under umask 022, as the Python SDK).
const implicitDirPerm fs.FileMode = 0o755

// statOp is OpStat: the entry's information and, with arg StatHash, the
// digest of a regular file, so a refresh is one process.
func statOp(ctx context.Context, b *local.Backend, rel, arg string) (Response, error) {
	fi, err := b.Stat(ctx, rel)
	if err != nil || arg != StatHash || !fi.IsRegular {
		return Response{Info: &fi}, err
	}
	sum, n, err := b.HashFile(ctx, rel)
	return Response{Info: &fi, SHA256: sum, Size: n}, err
}

// parseMeta reads an EntryMeta argument.
func parseMeta(arg string) (EntryMeta, error) {
	var m EntryMeta
	if err := json.Unmarshal([]byte(arg), &m); err != nil {
		return m, fmt.Errorf("%w: bad entry metadata %q: %w", errUsage, arg, err)
	}
	return m, nil
}

// applyMeta applies m to rel: chown or chgrp first, then chmod.
func applyMeta(ctx context.Context, b *local.Backend, rel string, m EntryMeta) error {
	switch {
	case m.Owner != "":
		if err := b.Chown(ctx, rel, m.Owner, m.Group, false); err != nil {
			return err
		}
	case m.Group != "":
		if err := b.Chgrp(ctx, rel, m.Group); err != nil {
			return err
		}
	}
	return b.Chmod(ctx, rel, fs.FileMode(m.Perm))
}

// absent reports whether nothing is at rel yet.
func absent(ctx context.Context, b *local.Backend, rel string) bool {
	_, err := b.Stat(ctx, rel)
	return errors.Is(err, backend.ErrNotExist)
}

// mkEntry is OpMkEntry: a directory entry made as the engine's ApplyDir
// makes it, in one process.
func mkEntry(ctx context.Context, b *local.Backend, rel, arg string) error {
	m, err := parseMeta(arg)
	if err != nil {
		return err
	}
	if err := b.EnsureRoot(ctx); err != nil {
		return err
	}
	created := absent(ctx, b, rel)
	if parent := path.Dir(rel); parent != "." {
		if err := b.MkdirAll(ctx, parent, implicitDirPerm); err != nil {
			return err
		}
	}
	if err := b.MkdirAll(ctx, rel, fs.FileMode(m.Perm)); err != nil {
		return err
	}
	if err := applyMeta(ctx, b, rel, m); err != nil {
		if created {
			_ = b.Remove(ctx, rel) // created just now: leave nothing untracked behind
		}
		return err
	}
	return nil
}

// pendingMeta is the metadata of a written member, applied after the
// batch; created says nothing was at its path before.
type pendingMeta struct {
	rel     string
	meta    EntryMeta
	created bool
}

// notePendingMeta records the PAXMeta of a member, if it has one, before
// the member is written.
func notePendingMeta(ctx context.Context, b *local.Backend, metas *[]pendingMeta, hdr *tar.Header) error {
	arg, ok := hdr.PAXRecords[PAXMeta]
	if !ok {
		return nil
	}
	m, err := parseMeta(arg)
	if err != nil {
		return err
	}
	*metas = append(*metas, pendingMeta{rel: hdr.Name, meta: m, created: absent(ctx, b, hdr.Name)})
	return nil
}

// applyPendingMeta applies the metadata of the written members; a member
// created by this write whose metadata fails is removed again, and so are
// the later ones created by it.
func applyPendingMeta(ctx context.Context, b *local.Backend, metas []pendingMeta) error {
	for i, p := range metas {
		if err := applyMeta(ctx, b, p.rel, p.meta); err != nil {
			for _, q := range metas[i:] {
				if q.created {
					_ = b.Remove(ctx, q.rel)
				}
			}
			return err
		}
	}
	return nil
}
