//go:build linux

package hostsource

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/checksum"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/digestcache"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/progress"
)

// scanJob is one opened regular file waiting to be hashed, or (f nil) one
// whose digest the cache gave.
type scanJob struct {
	rel   string
	perm  fs.FileMode
	f     *os.File
	st    digestcache.Stat
	start int64
	sum   string
}

// scanner walks a pinned directory tree and feeds its regular files, already
// opened relative to their parent's descriptor, to the hashing workers.
type scanner struct {
	ctx            context.Context
	jobs           chan<- scanJob
	allowHardLinks bool
	digests        *digestcache.Set // nil: no cache (not hashing, or off)
}

// scanTree implements ScanDir for an inspected directory target: every
// regular file is hashed.
func (p Policy) scanTree(parent context.Context, t *hostTarget) (checksum.TreeDigest, error) {
	return p.walkTree(parent, t, true, func(ctx context.Context, rel string, _ fs.FileMode, f *os.File) (string, int64, error) {
		return sha256Reader(ctx, f)
	})
}

// visitTree implements VisitDir: fn sees every regular file, opened.
func (p Policy) visitTree(parent context.Context, t *hostTarget, fn func(TreeVisit) error) (checksum.TreeDigest, error) {
	return p.walkTree(parent, t, false, func(_ context.Context, rel string, perm fs.FileMode, f *os.File) (string, int64, error) {
		fi, err := f.Stat()
		if err != nil {
			return "", 0, err
		}
		return "", fi.Size(), fn(TreeVisit{Rel: rel, Perm: perm, Size: fi.Size(), File: f})
	})
}

// walkTree walks the pinned tree of t and runs work on each regular file
// with at most LocalDirFiles workers; work's (sha256, size) fill the
// returned TreeFile. The file is closed after work returns. A work error is
// a checksum error when hashing, else a read error naming the file.
func (p Policy) walkTree(parent context.Context, t *hostTarget, hashing bool, work func(context.Context, string, fs.FileMode, *os.File) (string, int64, error)) (checksum.TreeDigest, error) {
	root, err := openPinned(t, true)
	if err != nil {
		return checksum.TreeDigest{}, err
	}
	defer root.Close()

	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	var (
		digests *digestcache.Set
		prog    *progress.Progress
	)
	if hashing {
		if err := digestcache.CheckOutside(t.abs); err != nil {
			return checksum.TreeDigest{}, err
		}
		digests = digestcache.Open(t.abs)
		prog = progress.Start(parent, "hash", t.abs, 0, 0)
	}
	n := p.workers()
	jobs := make(chan scanJob, n)
	results := make(chan checksum.TreeFile, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if j.f == nil {
					prog.Add(1, 0)
					results <- checksum.TreeFile{Rel: j.rel, Size: j.st.Size, SHA256: j.sum, Perm: j.perm}
					continue
				}
				sum, size, err := work(ctx, j.rel, j.perm, j.f)
				prog.Add(1, size)
				if err == nil && size == j.st.Size {
					digests.Store(j.rel, j.st, j.start, sum)
				}
				j.f.Close()
				if err != nil {
					if ctx.Err() == nil {
						f := fault("", j.rel, err)
						f.checksum = hashing
						cancel(f)
					}
					continue
				}
				results <- checksum.TreeFile{Rel: j.rel, Size: size, SHA256: sum, Perm: j.perm}
			}
		}()
	}
	files := []checksum.TreeFile{}
	collected := make(chan struct{})
	go func() {
		for r := range results {
			files = append(files, r)
		}
		close(collected)
	}()

	walkErr := (&scanner{ctx: ctx, jobs: jobs, allowHardLinks: p.AllowHardLinks, digests: digests}).walk(root, "")
	close(jobs)
	wg.Wait()
	close(results)
	<-collected
	if walkErr != nil {
		return checksum.TreeDigest{}, walkErr
	}
	if ctx.Err() != nil {
		return checksum.TreeDigest{}, context.Cause(ctx)
	}

	_ = digests.Save() // a cache that cannot be written only costs speed
	prog.Finish(false)
	slices.SortFunc(files, func(a, b checksum.TreeFile) int { return strings.Compare(a.Rel, b.Rel) })
	td := checksum.TreeDigest{Root: t.abs, Files: files, SHA256: checksum.TreeSHA256(files)}
	for _, f := range files {
		td.TotalBytes += f.Size
	}
	return td, nil
}

// walk lists dir (whose tree-relative path is rel, "" for the root) in name
// order and descends into subdirectories; it never follows a symlink.
func (s *scanner) walk(dir *os.File, rel string) error {
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return fault("", relOrDot(rel), err)
	}
	slices.Sort(names)
	dfd := int(dir.Fd())
	for _, name := range names {
		if s.ctx.Err() != nil {
			return context.Cause(s.ctx)
		}
		child := name
		if rel != "" {
			child = rel + "/" + name
		}
		var st unix.Stat_t
		start := s.digests.Start()
		if err := fstatatRetry(dfd, name, &st); err != nil {
			if errors.Is(err, unix.ENOENT) {
				return fault(sandbox.ReasonPathChangedDuringCopy, child, err)
			}
			return fault("", child, err)
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			return fault(sandbox.ReasonSymlinkNotSupported, child, nil)
		case unix.S_IFDIR:
			sub, err := openChild(dfd, name, child, filepath.Join(dir.Name(), name), &st, true)
			if err != nil {
				return err
			}
			err = s.walk(sub, child)
			sub.Close()
			if err != nil {
				return err
			}
		case unix.S_IFREG:
			if st.Nlink > 1 && !s.allowHardLinks {
				return hardLinkFault(child, uint64(st.Nlink)) //nolint:unconvert // Nlink is uint32 on some architectures
			}
			j := scanJob{rel: child, perm: fs.FileMode(st.Mode & 0o777), st: digestcache.StatOf(&st), start: start}
			if sum, ok := s.digests.Lookup(child, j.st); ok {
				j.sum = sum
			} else {
				f, err := openChild(dfd, name, child, filepath.Join(dir.Name(), name), &st, false)
				if err != nil {
					return err
				}
				j.f = f
			}
			select {
			case s.jobs <- j:
			case <-s.ctx.Done():
				if j.f != nil {
					j.f.Close()
				}
				return context.Cause(s.ctx)
			}
		default:
			// Sockets, fifos and devices are skipped, as the Python SDK does.
		}
	}
	return nil
}

// openChild opens name below the directory descriptor dfd without following
// a symlink and checks that it is still the inode fstatat reported; child is
// its tree-relative path for errors, osName the returned file's Name().
func openChild(dfd int, name, child, osName string, st *unix.Stat_t, dir bool) (*os.File, error) {
	flags := unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK
	if dir {
		flags = unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_DIRECTORY
	}
	fd, err := openatRetry(dfd, name, flags)
	if err != nil {
		return nil, openFault(dfd, name, err, child)
	}
	var got unix.Stat_t
	if err := unix.Fstat(fd, &got); err != nil {
		unix.Close(fd)
		return nil, fault("", child, err)
	}
	if got.Dev != st.Dev || got.Ino != st.Ino || got.Mode&unix.S_IFMT != st.Mode&unix.S_IFMT {
		unix.Close(fd)
		return nil, fault(sandbox.ReasonPathChangedDuringCopy, child, fmt.Errorf("%s was replaced while being read", child))
	}
	if !dir {
		if err := unix.SetNonblock(fd, false); err != nil {
			unix.Close(fd)
			return nil, fault("", child, err)
		}
	}
	return os.NewFile(uintptr(fd), osName), nil
}

func fstatatRetry(dfd int, name string, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(dfd, name, st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			return err
		}
	}
}

func relOrDot(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}

// sha256Reader streams r into SHA-256 and returns the hex digest and the
// number of bytes read; ctx is checked between chunks.
func sha256Reader(ctx context.Context, r io.Reader) (string, int64, error) {
	h := sha256.New()
	n, err := checksum.CopyChunks(ctx, h, r)
	if err != nil {
		return "", n, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
