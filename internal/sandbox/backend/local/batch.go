package local

import (
	"fmt"
	"io"
	"io/fs"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

// BatchItem is one file of a WriteBatch: the workspace-relative path, the
// permission bits it gets, the SHA-256 (hex) its content must have ("" to
// skip the check) and the content, read once to EOF.
type BatchItem struct {
	Rel    string
	Perm   fs.FileMode
	SHA256 string
	R      io.Reader
	// ReplaceEmptyDir is backend.BatchFile.ReplaceEmptyDir.
	ReplaceEmptyDir bool
}

// ContentChangedError is a write refused because its content does not
// have the planned SHA-256; it wraps backend.ErrContentChanged.
type ContentChangedError struct {
	// Rel is the workspace-relative target; SHA256 is what the content
	// hashed to, Planned what it had to.
	Rel, SHA256, Planned string
}

func (e *ContentChangedError) Error() string {
	return fmt.Sprintf("write %s: content has SHA-256 %s, planned %s: %v", e.Rel, e.SHA256, e.Planned, backend.ErrContentChanged)
}

func (e *ContentChangedError) Unwrap() error { return backend.ErrContentChanged }
