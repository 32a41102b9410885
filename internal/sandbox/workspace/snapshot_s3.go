package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/s3store"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/snapshot"
)

// S3Target is the bucket a snapshot is uploaded to.
type S3Target struct {
	Endpoint, Region, Bucket, Prefix string
	Credentials                      s3store.Credentials
}

// Location is the object of snapshot id: <prefix>/<id>.tar in the bucket.
func (t S3Target) Location(id string) s3store.Location {
	return s3store.Location{Endpoint: t.Endpoint, Region: t.Region, Bucket: t.Bucket, Key: s3store.SnapshotKey(t.Prefix, id)}
}

// SnapshotS3Result is what an S3 snapshot uploaded.
type SnapshotS3Result struct {
	// Location is the object written; ETag and Size are what the service
	// reported for it after the upload.
	Location s3store.Location
	ETag     string
	snapshot.Summary
	// Excluded are the members left out with ExcludeUnsafe.
	Excluded []snapshot.Excluded
}

// SnapshotS3 persists the workspace root as Snapshot does, streaming the
// tar into a multipart upload of <prefix>/<SnapshotID>.tar: the archive is
// never held whole in memory nor written to the host. A failed snapshot
// aborts the upload, so no object is left behind.
func (w *Workspace) SnapshotS3(ctx context.Context, t S3Target, req SnapshotRequest) (SnapshotS3Result, error) {
	if _, err := snapshot.LocalPath(".", req.SnapshotID); err != nil {
		return SnapshotS3Result{}, err // the id is one path segment, as for a local archive
	}
	c, err := s3store.New(t.Location(req.SnapshotID), t.Credentials)
	if err != nil {
		return SnapshotS3Result{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	type persisted struct {
		sum      snapshot.Summary
		excluded []snapshot.Excluded
		err      error
	}
	done := make(chan persisted, 1)
	go func() {
		sum, excluded, err := w.persistTo(ctx, req, pw)
		pw.CloseWithError(err)
		done <- persisted{sum, excluded, err}
	}()
	// With a persist that fails, the upload reads its error and aborts.
	st, uerr := c.Upload(ctx, pr, map[string]string{"sandbox-snapshot-id": req.SnapshotID})
	pr.CloseWithError(errors.New("the upload stopped"))
	p := <-done
	switch {
	case uerr != nil: // a failed persist's error, when it failed first
		err = uerr
	case p.err != nil:
		err = p.err
	case st.Size != p.sum.Size:
		err = fmt.Errorf("the object has %d bytes, the archive %d", st.Size, p.sum.Size)
	}
	if err != nil {
		return SnapshotS3Result{}, fmt.Errorf("snapshot of workspace %s to %s: %w", w.ID, c.Location().URL(), err)
	}
	return SnapshotS3Result{Location: c.Location(), ETag: st.ETag, Summary: p.sum, Excluded: p.excluded}, nil
}

// ReadObject HEADs a snapshot object; it only reads.
func (e *Engine) ReadObject(ctx context.Context, loc s3store.Location, cr s3store.Credentials) (s3store.ObjectState, error) {
	c, err := s3store.New(loc, cr)
	if err != nil {
		return s3store.ObjectState{}, err
	}
	return c.Head(ctx)
}

// RemoveObject deletes the snapshot object at loc if it still has the
// ETag and size it was written with; a missing object is not an error, a
// changed one is left in place (an error wrapping ErrArchiveChanged).
func (e *Engine) RemoveObject(ctx context.Context, loc s3store.Location, cr s3store.Credentials, etag string, size int64) error {
	c, err := s3store.New(loc, cr)
	if err != nil {
		return err
	}
	st, err := c.Head(ctx)
	switch {
	case err != nil:
		return err
	case !st.Exists:
		return nil
	case st.ETag != etag || st.Size != size:
		return fmt.Errorf("%w: %s was left in place (ETag %s and %d bytes, written as %s and %d bytes)",
			ErrArchiveChanged, loc.URL(), st.ETag, st.Size, etag, size)
	}
	return c.Delete(ctx)
}
