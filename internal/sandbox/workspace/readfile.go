package workspace

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// FileContent is a file read out of a workspace.
type FileContent struct {
	// Exists is false when nothing is at the path.
	Exists bool
	// Size in bytes and SHA256 (hex) of the content.
	Size   int64
	SHA256 string
	// Content holds the bytes.
	Content []byte
}

// ErrTooLarge is wrapped when a file read is larger than its limit.
var ErrTooLarge = backend.ErrTooLarge

// ReadFile reads the regular file rel (the Python SDK's path rules; no
// symlink is followed anywhere along it) of at most limit bytes. A missing
// file is not an error (Exists false). It only reads.
func (w *Workspace) ReadFile(ctx context.Context, rel string, limit int64) (FileContent, error) {
	clean, err := posix.ValidateEntryPath(rel)
	if err != nil {
		return FileContent{}, err
	}
	r, ok := w.Backend.(backend.FileReader)
	if !ok {
		return FileContent{}, fmt.Errorf("workspace %s cannot read files", w.ID)
	}
	var buf bytes.Buffer
	n, err := r.ReadFile(ctx, clean, &buf, limit)
	if errors.Is(err, fs.ErrNotExist) {
		return FileContent{}, nil
	}
	if err != nil {
		return FileContent{}, err
	}
	sum := sha256.Sum256(buf.Bytes())
	return FileContent{Exists: true, Size: n, SHA256: hex.EncodeToString(sum[:]), Content: buf.Bytes()}, nil
}
