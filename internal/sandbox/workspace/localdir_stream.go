package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/checksum"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/hostsource"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/progress"
)

// copyTreeBatch streams todo to a BatchWriter; each host file is reopened
// by the pinned walk when its turn in the stream comes, and counted in prog
// as its bytes go into the stream.
func copyTreeBatch(ctx context.Context, bw backend.BatchWriter, host hostsource.Policy, tree checksum.TreeDigest, rel string, todo []checksum.TreeFile, prog *progress.Progress) error {
	files := make([]backend.BatchFile, 0, len(todo))
	for _, f := range todo {
		files = append(files, backend.BatchFile{
			Rel: joinRel(rel, f.Rel), Size: f.Size, Perm: f.Perm, SHA256: f.SHA256, ReplaceEmptyDir: true,
			Open: func(ctx context.Context) (io.ReadCloser, error) {
				rc, err := host.OpenTreeFile(ctx, tree, f.Rel)
				if err != nil || prog == nil {
					return rc, err
				}
				return progressFile{Reader: prog.Reader(rc), c: rc, done: func() { prog.Add(1, 0) }}, nil
			},
		})
	}
	_, err := bw.WriteFiles(ctx, files)
	if errors.Is(err, backend.ErrContentChanged) {
		return fmt.Errorf("a host file below %s changed while it was being copied: %w: %w", tree.Root, ErrSourceChanged, err)
	}
	return err
}

// progressFile is a host file in a copy's stream, counted as read, and as
// one file done when closed.
type progressFile struct {
	io.Reader
	c    io.Closer
	done func()
}

func (f progressFile) Close() error {
	f.done()
	return f.c.Close()
}
