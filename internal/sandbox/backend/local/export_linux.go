//go:build linux

package local

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

var _ backend.ExportArchiver = (*Backend)(nil)

// ExportArchive implements backend.ExportArchiver: each file is opened
// beneath the root without following symlinks and written as one member;
// the holes of a sparse file (found with SEEK_DATA/SEEK_HOLE) are left out
// of the member and described by its PAX records.
func (b *Backend) ExportArchive(ctx context.Context, files []string, w io.Writer) error {
	tw := tar.NewWriter(w)
	for _, rel := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := b.exportMember(tw, rel); err != nil {
			return err
		}
	}
	return tw.Close()
}

func (b *Backend) exportMember(tw *tar.Writer, rel string) error {
	rel, err := cleanRel("export", rel)
	if err != nil {
		return err
	}
	fd, err := b.open("export", rel, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK)
	if err != nil {
		return err
	}
	f, err := regularFile(fd, rel)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	size := fi.Size()
	segs, err := dataSegments(int(f.Fd()), size)
	if err != nil {
		return fmt.Errorf("export %s: %w", rel, err)
	}
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: rel, Mode: int64(fi.Mode().Perm()), Size: size,
		ModTime: fi.ModTime(), Format: tar.FormatPAX}
	if len(segs) != 1 || segs[0] != (backend.Segment{Len: size}) {
		var data int64
		for _, s := range segs {
			data += s.Len
		}
		hdr.Size = data
		hdr.PAXRecords = map[string]string{backend.PAXExportSize: strconv.FormatInt(size, 10),
			backend.PAXExportData: backend.FormatSegments(segs)}
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	for _, s := range segs {
		n, err := io.Copy(tw, io.NewSectionReader(f, s.Off, s.Len))
		if err == nil && n < s.Len {
			err = fmt.Errorf("export %s: the file shrank while read", rel)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// dataSegments lists the data ranges of the open file fd of size bytes
// with SEEK_DATA/SEEK_HOLE: a file system that cannot tell holes gives one
// segment for the whole file. Past backend.MaxExportSegments, the last
// segment runs to the end of the file (its holes are sent as zeros).
func dataSegments(fd int, size int64) ([]backend.Segment, error) {
	if size == 0 {
		return nil, nil
	}
	var segs []backend.Segment
	for off := int64(0); off < size; {
		start, err := unix.Seek(fd, off, unix.SEEK_DATA)
		if errors.Is(err, unix.ENXIO) {
			break // only a hole from off to the end
		}
		if err != nil {
			if len(segs) == 0 && errors.Is(err, unix.EINVAL) {
				return []backend.Segment{{Len: size}}, nil
			}
			return nil, err
		}
		end, err := unix.Seek(fd, start, unix.SEEK_HOLE)
		if err != nil {
			return nil, err
		}
		if start >= size {
			break
		}
		if end > size || len(segs) == backend.MaxExportSegments-1 {
			end = size
		}
		segs = append(segs, backend.Segment{Off: start, Len: end - start})
		off = end
	}
	return segs, nil
}
