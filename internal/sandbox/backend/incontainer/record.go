package incontainer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
)

// recordRel is where the record name is kept in the container, relative to
// its "/": in fshelper.DigestDir, the provider's own directory beside the
// helper, outside every workspace root (a root is never "/") and writable
// even when the image's filesystem is read-only. An agent that is root in
// the container can edit it: whoever reads a record treats it as untrusted.
func recordRel(name string) string {
	return strings.TrimPrefix(fshelper.DigestDir, "/") + "/workspace-" + name + ".json"
}

// outside is w's container seen from its "/", for the provider's records.
func (w *Workspace) outside() *Workspace {
	c := *w
	c.root = "/"
	return &c
}

// ReadRecord returns the record name kept in the container (nil when there
// is none). A record of more than limit bytes fails with an error wrapping
// backend.ErrTooLarge before it is read, one that is not a regular file
// (a symlink, a directory) with an error wrapping fs.ErrInvalid.
func (w *Workspace) ReadRecord(ctx context.Context, name string, limit int64) ([]byte, error) {
	o, rel := w.outside(), recordRel(name)
	fi, err := o.Stat(ctx, rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	case !fi.IsRegular:
		return nil, fmt.Errorf("/%s is not a regular file: %w", rel, fs.ErrInvalid)
	case fi.Size > limit:
		return nil, fmt.Errorf("/%s is %d bytes: %w (%d)", rel, fi.Size, backend.ErrTooLarge, limit)
	}
	// The content may not exceed the size the stat gave: a helper that
	// streams more is cut off at once.
	var buf bytes.Buffer
	if err := o.helperStream(ctx, fshelper.OpRead, rel, strconv.FormatInt(limit, 10), &buf, fi.Size); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteRecord replaces the record name in the container with data (0644,
// owned by root, written atomically); empty data removes it.
func (w *Workspace) WriteRecord(ctx context.Context, name string, data []byte) error {
	o := w.outside()
	rel := recordRel(name)
	if len(data) == 0 {
		if err := o.Remove(ctx, rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := o.MkdirAll(ctx, strings.TrimPrefix(fshelper.DigestDir, "/"), 0o700); err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	_, err := o.WriteFile(ctx, rel, bytes.NewReader(data), 0o644, hex.EncodeToString(sum[:]))
	return err
}
