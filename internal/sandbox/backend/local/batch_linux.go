//go:build linux

package local

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sync"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"golang.org/x/sys/unix"
)

// batchWorkers is how many files of a batch are staged at once. Creating a
// file costs far more than copying a small one, so small files (up to one
// chunk) are read from the stream into a pooled chunk and written by
// workers while the stream moves on; larger files are streamed in order.
// At most batchWorkers+1 chunks (1 MiB each) are held.
const batchWorkers = 4

// stageJob is one small file handed to a worker.
type stageJob struct {
	i    int
	pfd  *fd // borrowed from the batch
	rel  string
	base string
	it   BatchItem
	buf  *[]byte
	n    int
}

// WriteBatch writes many files with WriteFile's guarantees (resolution
// beneath the root without following symlinks, temporary file beside the
// target, hashed while streamed, explicit fchmod, rename into place) but
// with one syncfs(2) for the whole batch instead of one fsync per file:
// every file is first staged into its temporary file (small files by
// batchWorkers workers at once), then the filesystem is synced once, then
// the temporary files are renamed over their targets in order (once
// started, the renames are not interrupted by ctx). next
// returns the items one after the other and io.EOF after the last; an
// item's reader is fully consumed before next is called again, so items
// may share one stream (a tar archive). When next, a reader or a checksum
// fails, or ctx is cancelled, every temporary file is removed and no target
// is touched; the error names the file.
func (b *Backend) WriteBatch(ctx context.Context, next func() (BatchItem, error)) ([]sandbox.WriteResult, error) {
	return b.writeBatch(ctx, next, false)
}

// writeBatch is WriteBatch, or WriteFile's batch when single is set: then
// every file is staged here, in order, and its temporary file stays open
// and locked until it is fsync-ed and renamed; no syncfs(2).
func (b *Backend) writeBatch(ctx context.Context, next func() (BatchItem, error), single bool) ([]sandbox.WriteResult, error) {
	root, err := b.openRoot("write")
	if err != nil {
		return nil, err
	}
	defer root.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &batchState{dirs: map[string]*fd{}, cancel: cancel, single: single}
	defer s.close()

	jobs := make(chan stageJob)
	var wg sync.WaitGroup
	for range s.workers() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				p, res, err := stageBytes(ctx, j)
				chunkPool.Put(j.buf)
				s.done(j.i, p, res, err)
			}
		}()
	}
	err = s.feed(ctx, b, root, next, jobs)
	close(jobs)
	wg.Wait()
	if err == nil {
		err = s.err
	}
	if err != nil {
		return nil, err
	}
	if len(s.todo) == 0 {
		return s.results, nil
	}
	if !single {
		if err := unix.Syncfs(root.n()); err != nil {
			return nil, fmt.Errorf("write: syncfs: %w", err)
		}
	}
	// A deadline or cancellation is honoured up to here, with every
	// temporary file removed; the renames that follow are not interrupted,
	// so that a batch lands whole or not at all.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cctx := ctx
	if !single {
		cctx = context.WithoutCancel(ctx)
	}
	for _, p := range s.todo {
		if err := p.commit(cctx); err != nil {
			return nil, err
		}
		b.note(p.rel, p.written)
	}
	return s.results, nil
}

// batchState is what WriteBatch tracks: directory descriptors, staged files
// and results by index, and the first error.
type batchState struct {
	mu      sync.Mutex
	single  bool // WriteFile's batch of one: no workers, temporaries kept open
	dirs    map[string]*fd
	todo    []*staged
	results []sandbox.WriteResult
	err     error
	cancel  context.CancelFunc
}

// workers is how many workers stage small files.
func (s *batchState) workers() int {
	if s.single {
		return 0
	}
	return batchWorkers
}

// slot reserves index i for a file.
func (s *batchState) slot() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.todo = append(s.todo, nil)
	s.results = append(s.results, sandbox.WriteResult{})
	return len(s.todo) - 1
}

// done records the outcome of staging file i.
func (s *batchState) done(i int, p *staged, res sandbox.WriteResult, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if s.err == nil {
			s.err = err
			s.cancel()
		}
		return
	}
	s.todo[i], s.results[i] = p, res
}

// close removes every temporary file not renamed and closes directories.
func (s *batchState) close() {
	for _, p := range s.todo {
		if p != nil {
			p.abort()
		}
	}
	closeDirs(s.dirs)
}

// feed reads the items, resolves their directories and hands small files
// to the workers; larger files are staged here, in stream order.
func (s *batchState) feed(ctx context.Context, b *Backend, root *fd, next func() (BatchItem, error), jobs chan<- stageJob) error {
	for {
		if err := ctx.Err(); err != nil {
			return s.firstErr(err)
		}
		it, err := next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		pfd, rel, base, err := b.targetDir(root, s.dirs, it.Rel, it.ReplaceEmptyDir)
		if err != nil {
			return err
		}
		if s.single {
			p, res, err := stage(ctx, pfd, rel, base, it)
			s.done(s.slot(), p, res, err)
			if err != nil {
				return err
			}
			continue
		}
		if src, _ := kernelSource(it.R); src != nil { // copied inside the kernel, in stream order
			p, res, err := stageClosed(ctx, pfd, rel, base, it)
			s.done(s.slot(), p, res, err)
			if err != nil {
				return err
			}
			continue
		}
		bp := chunkPool.Get().(*[]byte) //nolint:forcetypeassert // the pool holds only *[]byte
		n, rerr := io.ReadFull(it.R, *bp)
		i := s.slot()
		switch {
		case errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF):
			select {
			case jobs <- stageJob{i: i, pfd: pfd, rel: rel, base: base, it: it, buf: bp, n: n}:
			case <-ctx.Done():
				chunkPool.Put(bp)
				return s.firstErr(ctx.Err())
			}
		case rerr != nil:
			chunkPool.Put(bp)
			return fmt.Errorf("write %s: %w", rel, rerr)
		default: // at least a chunk: stream the rest in order
			it.R = io.MultiReader(bytes.NewReader((*bp)[:n]), it.R)
			p, res, err := stageClosed(ctx, pfd, rel, base, it)
			chunkPool.Put(bp)
			s.done(i, p, res, err)
			if err != nil {
				return err
			}
		}
	}
}

func (s *batchState) firstErr(err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	return err
}

// targetDir resolves (creating as needed, mode 0755) the directory of rel
// and checks that rel is not a symlink or a directory.
func (b *Backend) targetDir(root *fd, dirs map[string]*fd, relIn string, replaceEmptyDir bool) (*fd, string, string, error) {
	rel, err := cleanRel("write", relIn)
	if err != nil {
		return nil, "", "", err
	}
	if rel == "." {
		return nil, "", "", errors.New("write: the workspace root is a directory, not a file")
	}
	dir, base := path.Split(rel)
	pfd, ok := dirs[dir]
	if !ok {
		if pfd, err = mkdirAll("write", root, dir, 0o755); err != nil {
			return nil, "", "", err
		}
		dirs[dir] = pfd
	}
	if st, err := pfd.statAt(base); err == nil {
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			return nil, "", "", escapeErr("write", rel)
		case unix.S_IFDIR:
			// A directory holding nothing (or only empty directories) has
			// nothing to lose: it may give way, as a copy keeps no empty
			// directory. Anything else in it stays, and the write fails.
			if !replaceEmptyDir {
				return nil, "", "", &fs.PathError{Op: "write", Path: rel, Err: unix.EISDIR}
			}
			if err := removeEmptyDirs(pfd, base, st.Dev); err != nil {
				return nil, "", "", &fs.PathError{Op: "write", Path: rel, Err: fmt.Errorf("%w: a directory that is not empty "+
					"stands where this file goes; move or delete it in the workspace", unix.EISDIR)}
			}
		}
	}
	return pfd, rel, base, nil
}

// stageBytes stages a small file already read into a chunk; its temporary
// file is closed at once (a batch may stage thousands).
func stageBytes(ctx context.Context, j stageJob) (*staged, sandbox.WriteResult, error) {
	j.it.R = bytes.NewReader((*j.buf)[:j.n])
	return stageClosed(ctx, j.pfd, j.rel, j.base, j.it)
}

// stageClosed is stage for a batch: the temporary file is closed once
// filled and renamed after the batch's one syncfs.
func stageClosed(ctx context.Context, pfd *fd, rel, base string, it BatchItem) (*staged, sandbox.WriteResult, error) {
	p, res, err := stage(ctx, pfd, rel, base, it)
	if err == nil {
		err = p.release()
	}
	if err != nil {
		return nil, sandbox.WriteResult{}, err
	}
	return p, res, nil
}

// EnsureRoot makes the root directory exist, as the Python SDK's `mkdir -p
// <root>` when a manifest is applied (design/sdk-model.md §4.1): missing parents and the
// root are created with mode 0755 (explicit chmod). Unlike Create, an
// existing directory is accepted whatever it holds (a container image may
// ship one); a root that is a symlink or not a directory is refused.
func (b *Backend) EnsureRoot(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	fi, err := os.Lstat(b.root)
	if errors.Is(err, fs.ErrNotExist) {
		if err := mkdirParents(b.root); err != nil {
			return err
		}
		fi, err = os.Lstat(b.root)
	}
	if err != nil {
		return fmt.Errorf("workspace root %s: %w", b.root, err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("refusing workspace root %s: it is a symlink", b.root)
	case !fi.IsDir():
		return fmt.Errorf("refusing workspace root %s: it exists and is not a directory", b.root)
	}
	return nil
}
