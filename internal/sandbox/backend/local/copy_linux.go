//go:build linux

package local

import (
	"context"
	"errors"
	"hash"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// kernelCopyFrom is the size in bytes from which content read from an open
// regular file (a host source) is copied inside the kernel rather than
// through the provider: smaller files cost their creation far more than
// their bytes, and a batch reads them into chunks for its workers.
const kernelCopyFrom = chunkSize

// copyWindow is how many bytes one copy_file_range(2) call is asked for;
// each window is hashed back while the next one is copied.
const copyWindow = 8 << 20

// FileSource is a reader of an open regular file that lets a write take its
// bytes without reading them (the progress reader of a host source does):
// SourceFile is the file (nil when there is none), and Copied is told how
// many bytes were taken that way.
type FileSource interface {
	io.Reader
	SourceFile() *os.File
	Copied(n int64)
}

// errNoKernelCopy is kernelFill's answer when the kernel cannot copy
// between the two files; nothing was copied, and the caller streams.
var errNoKernelCopy = errors.New("no in-kernel copy between these files")

// kernelSource returns the regular file of at least kernelCopyFrom bytes
// behind r and the function that counts bytes copied from it, or nil.
func kernelSource(r io.Reader) (*os.File, func(int64)) {
	var f *os.File
	counted := func(int64) {}
	switch v := r.(type) {
	case *os.File:
		f = v
	case FileSource:
		f, counted = v.SourceFile(), v.Copied
	}
	if f == nil {
		return nil, nil
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() < kernelCopyFrom {
		return nil, nil
	}
	return f, counted
}

// kernelFill copies src from its current offset to its end into f inside
// the kernel (copy_file_range(2): a reflink or an in-kernel copy, as `cp`
// does), and feeds h by reading each copied window back from f, from the
// page cache, while the next window is copied: h hashes what f holds, not
// what src held when it was read. Writeback is started every
// writebackEvery bytes, as a streamed write does. When the kernel cannot
// copy between the two files and nothing was copied, the error is
// errNoKernelCopy.
func kernelFill(ctx context.Context, f, src *os.File, h hash.Hash, counted func(int64)) (int64, error) {
	windows := make(chan span, 2)
	hashed := make(chan error, 1)
	go func() { hashed <- hashWindows(f, h, windows) }()
	var off, flushed int64
	var err error
	in, out := int(src.Fd()), int(f.Fd())
	for {
		if err = ctx.Err(); err != nil {
			break
		}
		var n int
		n, err = unix.CopyFileRange(in, nil, out, nil, copyWindow, 0)
		if err != nil || n == 0 {
			// Some filesystems answer 0 bytes for content they cannot
			// copy this way (procfs and the like): stream those.
			if off == 0 && (n == 0 || noKernelCopy(err)) {
				err = errNoKernelCopy
			}
			break
		}
		windows <- span{off, int64(n)}
		off += int64(n)
		counted(int64(n))
		if off-flushed >= writebackEvery {
			_ = unix.SyncFileRange(out, flushed, off-flushed, unix.SYNC_FILE_RANGE_WRITE) // a hint only
			flushed = off
		}
	}
	close(windows)
	if herr := <-hashed; err == nil {
		err = herr
	}
	return off, err
}

// span is a window of a file: its offset and length in bytes.
type span struct{ off, n int64 }

// hashWindows reads every window from f and writes it to h; after a
// failure it drains the windows and returns the first error.
func hashWindows(f *os.File, h hash.Hash, windows <-chan span) error {
	bp := chunkPool.Get().(*[]byte) //nolint:forcetypeassert // the pool holds only *[]byte
	defer chunkPool.Put(bp)
	buf := *bp
	var err error
	for w := range windows {
		for done := int64(0); done < w.n && err == nil; {
			m, rerr := f.ReadAt(buf[:min(int64(len(buf)), w.n-done)], w.off+done)
			h.Write(buf[:m])
			done += int64(m)
			switch {
			case rerr != nil && (done < w.n || !errors.Is(rerr, io.EOF)):
				err = rerr
				if errors.Is(rerr, io.EOF) {
					err = io.ErrUnexpectedEOF // the copy is shorter than the kernel said
				}
			case m == 0 && done < w.n:
				err = io.ErrUnexpectedEOF
			}
		}
	}
	return err
}

// noKernelCopy tells the errors of copy_file_range(2) that mean "not
// between these files" (another filesystem on an older kernel, a
// filesystem without support, a special file) from real I/O errors.
func noKernelCopy(err error) bool {
	return errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EXDEV) || errors.Is(err, unix.EINVAL) ||
		errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EPERM) || errors.Is(err, unix.EBADF)
}
