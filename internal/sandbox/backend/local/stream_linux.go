//go:build linux

package local

import (
	"hash"
	"os"

	"golang.org/x/sys/unix"
)

// Sizes for streaming a large file into its temporary copy.
const (
	// parallelHashFrom is the write size from which the hash runs on
	// another goroutine while the bytes go to the file: a 1 GiB copy then
	// takes about as long as the slower of the two, not their sum.
	parallelHashFrom = 64 << 10
	// writebackEvery is how many bytes are written before the kernel is
	// asked to start writing them to disk (sync_file_range), so the fsync
	// before the rename waits for the last window only.
	writebackEvery = 16 << 20
)

// hashingFile writes to f and feeds every byte to h.
type hashingFile struct {
	f       *os.File
	h       hash.Hash
	off     int64 // bytes written so far
	flushed int64 // bytes whose writeback was started
}

func (w *hashingFile) Write(p []byte) (int, error) {
	var n int
	var err error
	if len(p) < parallelHashFrom {
		w.h.Write(p)
		n, err = w.f.Write(p)
	} else {
		done := make(chan struct{})
		go func() {
			w.h.Write(p)
			close(done)
		}()
		n, err = w.f.Write(p)
		<-done
	}
	w.off += int64(n)
	if w.off-w.flushed >= writebackEvery {
		// Only a hint: the fsync before the rename is what makes the
		// content durable.
		_ = unix.SyncFileRange(int(w.f.Fd()), w.flushed, w.off-w.flushed, unix.SYNC_FILE_RANGE_WRITE)
		w.flushed = w.off
	}
	return n, err
}
