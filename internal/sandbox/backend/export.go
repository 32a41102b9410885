package backend

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ExportArchiver is implemented by backends that stream many files out of
// the workspace at once: one process (or, on the host, one pass) writes a
// tar of the listed files, read and checked by the engine as it arrives.
type ExportArchiver interface {
	// ExportArchive writes to w one tar member per listed regular file
	// (workspace-relative paths, no symlink followed anywhere along
	// them), in the order given, each a regular-file member named by its
	// path with its permission bits as the member mode. A sparse file's
	// member holds only its data: PAXExportSize gives the file's size and
	// PAXExportData the segments its data fills (see ExportSegments); the
	// rest of the file is holes. A failure cuts the archive short and is
	// returned.
	ExportArchive(ctx context.Context, files []string, w io.Writer) error
}

// PAXExportSize is the PAX record of an export member holding the file's
// size (decimal) when the member holds only the data segments of a sparse
// file.
const PAXExportSize = "SANDBOX.size"

// PAXExportData is the PAX record of an export member listing the data
// segments of a sparse file, "offset+length" pairs (decimal) separated by
// commas, in increasing order; the member's content is their bytes, one
// after the other.
const PAXExportData = "SANDBOX.data"

// MaxExportSegments bounds the data segments one export member may list;
// a file with more is sent with its last segment running to its end.
const MaxExportSegments = 1024

// Segment is one data range of a sparse file.
type Segment struct{ Off, Len int64 }

// FormatSegments renders segments as PAXExportData holds them.
func FormatSegments(segs []Segment) string {
	parts := make([]string, len(segs))
	for i, s := range segs {
		parts[i] = strconv.FormatInt(s.Off, 10) + "+" + strconv.FormatInt(s.Len, 10)
	}
	return strings.Join(parts, ",")
}

// ExportSegments reads the data segments of an export member from its PAX
// records and checks them against its declared content size: they must
// be in increasing order, not overlap, lie within the file's size and add
// up to the member's size. A member without the records is one segment
// covering the whole file. It returns the file's size and the segments.
func ExportSegments(pax map[string]string, memberSize int64) (int64, []Segment, error) {
	sizeRec, hasSize := pax[PAXExportSize]
	dataRec, hasData := pax[PAXExportData]
	if !hasSize && !hasData {
		if memberSize == 0 {
			return 0, nil, nil
		}
		return memberSize, []Segment{{0, memberSize}}, nil
	}
	if !hasSize || !hasData {
		return 0, nil, fmt.Errorf("sparse member without both %s and %s", PAXExportSize, PAXExportData)
	}
	size, err := strconv.ParseInt(sizeRec, 10, 64)
	if err != nil || size < 0 {
		return 0, nil, fmt.Errorf("bad %s %q", PAXExportSize, sizeRec)
	}
	var segs []Segment
	var end, total int64
	if dataRec != "" {
		parts := strings.Split(dataRec, ",")
		if len(parts) > MaxExportSegments {
			return 0, nil, fmt.Errorf("more than %d data segments", MaxExportSegments)
		}
		for _, p := range parts {
			o, l, ok := strings.Cut(p, "+")
			off, err1 := strconv.ParseInt(o, 10, 64)
			n, err2 := strconv.ParseInt(l, 10, 64)
			if !ok || err1 != nil || err2 != nil || off < end || n <= 0 || off > size || n > size-off {
				return 0, nil, fmt.Errorf("bad data segment %q in a file of %d bytes", p, size)
			}
			segs, end, total = append(segs, Segment{off, n}), off+n, total+n
		}
	}
	if total != memberSize {
		return 0, nil, fmt.Errorf("data segments hold %d bytes, the member %d", total, memberSize)
	}
	return size, segs, nil
}
