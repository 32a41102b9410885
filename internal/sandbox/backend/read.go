package backend

import (
	"context"
	"errors"
	"io"
)

// ErrTooLarge is wrapped by FileReader.ReadFile when the file holds more
// bytes than the limit.
var ErrTooLarge = errors.New("the file is larger than the limit")

// FileReader is implemented by backends that stream a file's content out
// of the workspace.
type FileReader interface {
	// ReadFile copies the regular file rel (no symlink followed anywhere
	// along the path) to w and returns its size. A file of more than limit
	// bytes fails with an error wrapping ErrTooLarge, before anything is
	// written to w when the size is known up front.
	ReadFile(ctx context.Context, rel string, w io.Writer, limit int64) (int64, error)
}
