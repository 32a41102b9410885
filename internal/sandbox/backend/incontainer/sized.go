package incontainer

import (
	"fmt"
	"io"
	"os"
)

// sized returns the number of bytes r will yield and a reader for them,
// without holding the content in memory: a reader that knows its length
// (bytes.Reader, strings.Reader) or a regular *os.File is used as is;
// anything else is first spooled to a temporary host file, removed by the
// returned cleanup.
func sized(r io.Reader) (int64, io.Reader, func(), error) {
	noop := func() {}
	switch v := r.(type) {
	case interface{ Len() int }:
		return int64(v.Len()), r, noop, nil
	case *os.File:
		if fi, err := v.Stat(); err == nil && fi.Mode().IsRegular() {
			if off, err := v.Seek(0, io.SeekCurrent); err == nil {
				return fi.Size() - off, r, noop, nil
			}
		}
	}
	tmp, err := os.CreateTemp("", "sandbox-spool-*")
	if err != nil {
		return 0, nil, noop, fmt.Errorf("spooling content: %w", err)
	}
	cleanup := func() { tmp.Close(); os.Remove(tmp.Name()) }
	n, err := io.Copy(tmp, r)
	if err == nil {
		_, err = tmp.Seek(0, io.SeekStart)
	}
	if err != nil {
		cleanup()
		return 0, nil, noop, fmt.Errorf("spooling content: %w", err)
	}
	return n, tmp, cleanup, nil
}
