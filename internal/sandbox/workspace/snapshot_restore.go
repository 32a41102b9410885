package workspace

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/s3store"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/snapshot"
)

// RestoreSource is where a restore reads its archive: a host Path
// (relative to the working directory unless absolute) or an S3 object,
// and the Limits on what the restore writes (zero bounds mean the
// defaults).
type RestoreSource struct {
	Path        string
	S3          *s3store.Location
	Credentials s3store.Credentials
	Limits      sandbox.OutputLimits
}

func (s RestoreSource) String() string {
	if s.S3 != nil {
		return s.S3.URL()
	}
	return s.Path
}

// archiveReads reads one archive twice: the first read validates it, the
// second extracts it and must see the same bytes (the same open file for
// a host path, an S3 GET pinned to the first read's ETag).
type archiveReads interface {
	first(ctx context.Context) (io.Reader, error)
	again(ctx context.Context) (io.Reader, error)
	Close() error
}

func (e *Engine) archiveReads(src RestoreSource) (archiveReads, error) {
	if src.S3 == nil {
		return &fileReads{path: e.HostPath(src.Path)}, nil
	}
	c, err := s3store.New(*src.S3, src.Credentials)
	if err != nil {
		return nil, err
	}
	return &objectReads{c: c}, nil
}

type fileReads struct {
	path string
	f    *os.File
}

func (r *fileReads) first(context.Context) (io.Reader, error) {
	f, err := os.Open(r.path)
	r.f = f
	return f, err
}

func (r *fileReads) again(context.Context) (io.Reader, error) {
	_, err := r.f.Seek(0, io.SeekStart)
	return r.f, err
}

func (r *fileReads) Close() error {
	if r.f == nil {
		return nil
	}
	return r.f.Close()
}

type objectReads struct {
	c    *s3store.Client
	etag string
	body io.ReadCloser
}

func (r *objectReads) first(ctx context.Context) (io.Reader, error) {
	body, st, err := r.c.Open(ctx, "")
	r.body, r.etag = body, st.ETag
	return body, err
}

func (r *objectReads) again(ctx context.Context) (io.Reader, error) {
	if err := r.Close(); err != nil {
		return nil, err
	}
	body, _, err := r.c.Open(ctx, r.etag)
	r.body = body
	return body, err
}

func (r *objectReads) Close() error {
	if r.body == nil {
		return nil
	}
	err := r.body.Close()
	r.body = nil
	return err
}

// RestoreFrom hydrates w from the archive at src, which must have the
// given SHA-256: the whole archive is read and every member validated
// first (snapshot.Validate), so a bad member refuses it with nothing
// written; then it is read again and streamed into the root, checked again
// member by member.
func (w *Workspace) RestoreFrom(ctx context.Context, src RestoreSource, wantSHA256 string) (snapshot.Summary, error) {
	rd, sum, err := w.eng.validateSource(ctx, src, wantSHA256)
	if err != nil {
		return snapshot.Summary{}, fmt.Errorf("restore_from %w; nothing was written", err)
	}
	defer rd.Close()
	r, err := rd.again(ctx)
	if err == nil {
		_, err = w.drv.hydrate(ctx, w, r, src.Limits)
	}
	if err != nil {
		return snapshot.Summary{}, fmt.Errorf("restore_from %s into workspace %s: %w", src, w.ID, err)
	}
	return sum, nil
}

// CheckRestoreSource reads the archive at src and checks, writing nothing,
// that it has the given SHA-256 and that every member is safe to restore.
func (e *Engine) CheckRestoreSource(ctx context.Context, src RestoreSource, wantSHA256 string) error {
	rd, _, err := e.validateSource(ctx, src, wantSHA256)
	if err != nil {
		return fmt.Errorf("%w; the archive was refused and nothing was written", err)
	}
	return rd.Close()
}

// validateSource reads all of src, validating every member and its
// SHA-256, and returns it ready to be read again.
func (e *Engine) validateSource(ctx context.Context, src RestoreSource, wantSHA256 string) (archiveReads, snapshot.Summary, error) {
	rd, err := e.archiveReads(src)
	if err != nil {
		return nil, snapshot.Summary{}, fmt.Errorf("%s: %w", src, err)
	}
	r, err := rd.first(ctx)
	var sum snapshot.Summary
	if err == nil {
		sum, err = snapshot.Validate(r, src.Limits)
	}
	if err == nil && sum.SHA256 != wantSHA256 {
		err = fmt.Errorf("%w: it has sha256 %s, restore_from.sha256 is %s", ErrArchiveChanged, sum.SHA256, wantSHA256)
	}
	if err != nil {
		rd.Close()
		return nil, snapshot.Summary{}, fmt.Errorf("%s: %w", src, err)
	}
	return rd, sum, nil
}
