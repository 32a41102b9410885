package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"

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
	for _, f := range acrossDirs(todo) {
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

// acrossDirs returns files (a scan's, in path order: the files of a
// directory come in runs) in the order that takes one file from each run in
// turn, so that consecutive files are in different directories. The
// receiving helper creates several small files at once; when they are in
// the same directory, each creation waits for the directory's lock, and a
// copy of many small files spends much of its time there. The order of a
// stream changes nothing else: its files are distinct, and none is the
// directory of another.
func acrossDirs(files []checksum.TreeFile) []checksum.TreeFile {
	var runs [][]checksum.TreeFile
	for i, f := range files {
		if i == 0 || path.Dir(f.Rel) != path.Dir(files[i-1].Rel) {
			runs = append(runs, nil)
		}
		runs[len(runs)-1] = append(runs[len(runs)-1], f)
	}
	if len(runs) < 2 {
		return files
	}
	out := make([]checksum.TreeFile, 0, len(files))
	for len(runs) > 0 {
		left := runs[:0]
		for _, r := range runs {
			out = append(out, r[0])
			if len(r) > 1 {
				left = append(left, r[1:])
			}
		}
		runs = left
	}
	return out
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
