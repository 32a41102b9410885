package incontainer

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
)

// WriteFile streams r into rel atomically: a one-member tar stream on the
// helper's stdin, which writes it as the local backend does. Size is not
// known in advance, so the content is first spooled to a temporary host
// file when r is not a file of known size.
func (w *Workspace) WriteFile(ctx context.Context, rel string, r io.Reader, perm fs.FileMode, wantSHA256 string) (sandbox.WriteResult, error) {
	return w.writeOne(ctx, rel, r, perm, wantSHA256, nil)
}

// writeOne is WriteFile with the PAX records pax added to the member.
func (w *Workspace) writeOne(ctx context.Context, rel string, r io.Reader, perm fs.FileMode, wantSHA256 string, pax map[string]string) (sandbox.WriteResult, error) {
	size, rc, cleanup, err := sized(r)
	if err != nil {
		return sandbox.WriteResult{}, err
	}
	defer cleanup()
	res, err := w.writeFiles(ctx, []backend.BatchFile{{
		Rel: rel, Size: size, Perm: perm, SHA256: wantSHA256,
		Open: func(context.Context) (io.ReadCloser, error) { return io.NopCloser(rc), nil },
	}}, pax)
	if err != nil {
		return sandbox.WriteResult{}, err
	}
	return res[0], nil
}

// WriteFiles writes every file in one tar stream to one helper process (see
// backend.BatchWriter). Files are opened one after the other while the
// stream is produced, so no content is ever held whole in memory.
func (w *Workspace) WriteFiles(ctx context.Context, files []backend.BatchFile) ([]sandbox.WriteResult, error) {
	return w.writeFiles(ctx, files, nil)
}

// writeFiles is WriteFiles with the PAX records pax added to every member.
func (w *Workspace) writeFiles(ctx context.Context, files []backend.BatchFile, pax map[string]string) ([]sandbox.WriteResult, error) {
	if len(files) == 0 {
		return nil, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var r fshelper.Response
	var err error
	if len(files) == 1 && files[0].Size <= maxBatchedWrite {
		// Small enough to wait in the workspace's queue (batch.go).
		var buf bytes.Buffer
		if err := writeTar(ctx, &buf, files, pax); err != nil {
			return nil, err
		}
		r, err = w.helper(ctx, fshelper.OpWrite, ".", "", newMemInput(buf.Bytes()))
	} else {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(writeTarBuffered(ctx, pw, files, pax)) }()
		r, err = w.helper(ctx, fshelper.OpWrite, ".", "", pr)
		pr.Close()
	}
	if err != nil {
		return nil, err
	}
	if len(r.Written) != len(files) {
		return nil, w.helperErr(fshelper.OpWrite, files[0].Rel, fmt.Errorf("%w: it reports %d files written of %d", ErrBadAnswer, len(r.Written), len(files)))
	}
	for i, f := range files {
		got := r.Written[i]
		if got.Size != f.Size || (f.SHA256 != "" && got.SHA256 != f.SHA256) {
			return nil, w.helperErr(fshelper.OpWrite, f.Rel, fmt.Errorf("%w: it reports %d bytes with SHA-256 %s, %d bytes were sent",
				ErrBadAnswer, got.Size, got.SHA256, f.Size))
		}
	}
	return r.Written, nil
}

// streamBufSize is how much of the OpWrite stream is gathered before it
// goes to the helper's stdin: a tar member is a header, a PAX header, the
// content and its padding, each a small write that would otherwise cross
// the pipe, the daemon's connection and the container runtime one by one.
const streamBufSize = 256 << 10

// copyBufs holds the buffers the content of the files is copied through,
// one per stream instead of one per file.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// writeTarBuffered is writeTar with its output gathered into writes of
// streamBufSize.
func writeTarBuffered(ctx context.Context, w io.Writer, files []backend.BatchFile, pax map[string]string) error {
	bw := bufio.NewWriterSize(w, streamBufSize)
	if err := writeTar(ctx, bw, files, pax); err != nil {
		return err
	}
	return bw.Flush()
}

// writeTar produces the OpWrite stream: one regular-file member per file,
// with its mode, the expected SHA-256 and the records of pax as PAX records.
func writeTar(ctx context.Context, w io.Writer, files []backend.BatchFile, pax map[string]string) error {
	tw := tar.NewWriter(w)
	bp := copyBufs.Get().(*[]byte) //nolint:forcetypeassert // the pool holds only *[]byte
	defer copyBufs.Put(bp)
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: f.Rel, Mode: int64(unixPerm(f.Perm)), Size: f.Size, Format: tar.FormatPAX}
		if f.SHA256 != "" || f.ReplaceEmptyDir || len(pax) > 0 {
			hdr.PAXRecords = map[string]string{}
			for k, v := range pax {
				hdr.PAXRecords[k] = v
			}
			if f.SHA256 != "" {
				hdr.PAXRecords[fshelper.PAXSHA256] = f.SHA256
			}
			if f.ReplaceEmptyDir {
				hdr.PAXRecords[fshelper.PAXReplaceEmptyDir] = "1"
			}
		}
		rc, err := f.Open(ctx)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(hdr); err != nil {
			rc.Close()
			return err
		}
		// The reader is wrapped so that the buffer is used: a file's
		// WriteTo would allocate one of its own per file.
		n, err := io.CopyBuffer(tw, struct{ io.Reader }{rc}, *bp)
		rc.Close()
		if errors.Is(err, tar.ErrWriteTooLong) {
			return fmt.Errorf("write %s: the source yielded more than the %d bytes expected: %w", f.Rel, f.Size, backend.ErrContentChanged)
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", f.Rel, err)
		}
		if n != f.Size {
			return fmt.Errorf("write %s: the source yielded %d bytes, expected %d: %w", f.Rel, n, f.Size, backend.ErrContentChanged)
		}
	}
	return tw.Close()
}

// unixPerm is the tar mode of perm: permission bits plus setuid, setgid and
// sticky.
func unixPerm(m fs.FileMode) uint32 {
	mode := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		mode |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		mode |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		mode |= 0o1000
	}
	return mode
}
