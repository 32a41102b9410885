package s3store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// PartSize is the size of the first 1,000 parts of an upload; later parts
// grow by 120 MiB every 1,000 parts, so that the 10,000 parts S3 allows
// hold its 5 TiB object limit (the last parts are 1,088 MiB). One part at a
// time is held in memory.
const PartSize = 8 << 20

const maxParts = 10000

// partSize is the size of part n (1-based).
func partSize(n int) int { return PartSize * (1 + (n-1)/1000*15) }

// Upload streams r to the object as a multipart upload, so the archive is
// never held whole and its size need not be known; only the object's own
// key is ever written. A failed upload is aborted, leaving no object and
// no parts behind. It returns the object's state after the upload.
func (c *Client) Upload(ctx context.Context, r io.Reader, metadata map[string]string) (ObjectState, error) {
	created, err := c.s3.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{
		Bucket: &c.loc.Bucket, Key: &c.loc.Key, ContentType: aws.String("application/x-tar"), Metadata: metadata,
	})
	if err != nil {
		return ObjectState{}, c.fail("CreateMultipartUpload", err)
	}
	parts, total, err := c.uploadParts(ctx, created.UploadId, r)
	if err == nil {
		_, err = c.s3.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
			Bucket: &c.loc.Bucket, Key: &c.loc.Key, UploadId: created.UploadId,
			MultipartUpload: &types.CompletedMultipartUpload{Parts: parts},
		})
		if err != nil {
			err = c.fail("CompleteMultipartUpload", err)
		}
	}
	if err != nil {
		// A fresh context: the upload's own may be what was cancelled.
		_, _ = c.s3.AbortMultipartUpload(context.WithoutCancel(ctx), &s3.AbortMultipartUploadInput{
			Bucket: &c.loc.Bucket, Key: &c.loc.Key, UploadId: created.UploadId,
		})
		return ObjectState{}, err
	}
	st, err := c.Head(ctx)
	if err == nil && (!st.Exists || st.Size != total) {
		err = fmt.Errorf("s3 %s: after the upload of %d bytes the object has %d (exists: %v)", c.loc.URL(), total, st.Size, st.Exists)
	}
	return st, err
}

func (c *Client) uploadParts(ctx context.Context, uploadID *string, r io.Reader) ([]types.CompletedPart, int64, error) {
	var parts []types.CompletedPart
	var total int64
	buf := make([]byte, partSize(1))
	for n := 1; ; n++ {
		if n > maxParts {
			return nil, 0, fmt.Errorf("s3 %s: the archive needs more than %d parts", c.loc.URL(), maxParts)
		}
		if size := partSize(n); size > len(buf) {
			buf = make([]byte, size)
		}
		got, rerr := io.ReadFull(r, buf)
		last := errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF)
		if rerr != nil && !last {
			return nil, 0, rerr
		}
		if got == 0 && n > 1 {
			return parts, total, nil
		}
		out, err := c.s3.UploadPart(ctx, &s3.UploadPartInput{
			Bucket: &c.loc.Bucket, Key: &c.loc.Key, UploadId: uploadID, PartNumber: aws.Int32(int32(n)), //nolint:gosec // n <= maxParts
			Body: bytes.NewReader(buf[:got]), ContentLength: aws.Int64(int64(got)),
		})
		if err != nil {
			return nil, 0, c.fail("UploadPart", err)
		}
		parts = append(parts, types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(int32(n))}) //nolint:gosec // as above
		total += int64(got)
		if last {
			return parts, total, nil
		}
	}
}
