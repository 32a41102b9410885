package s3store

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// IndexKey is the key of the inputs index of snapshot id below prefix:
// <prefix>/<id>.inputs.json, beside SnapshotKey's archive.
func IndexKey(prefix, id string) string {
	return strings.TrimSuffix(SnapshotKey(prefix, id), ".tar") + ".inputs.json"
}

// Put writes body as the whole object in one request (small objects).
func (c *Client) Put(ctx context.Context, body []byte) error {
	_, err := c.s3.PutObject(ctx, &s3.PutObjectInput{Bucket: &c.loc.Bucket, Key: &c.loc.Key,
		Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body))), ContentType: aws.String("application/json")})
	if err != nil {
		return c.fail("PUT", err)
	}
	return nil
}

// ReadSmall reads the whole object, refusing one of more than max bytes
// without reading past max+1.
func (c *Client) ReadSmall(ctx context.Context, max int64) ([]byte, error) {
	body, _, err := c.Open(ctx, "")
	if err != nil {
		return nil, err
	}
	defer body.Close()
	b, err := io.ReadAll(io.LimitReader(body, max+1))
	if err != nil {
		return nil, c.fail("GET", err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", c.loc.URL(), max)
	}
	return b, nil
}

// List returns the keys that start with loc.Key (a prefix, "" for the
// whole bucket) and end with suffix, in the service's (lexical) order, at
// most max of them: truncated reports that more were there (or that the
// listing went on past max/1000+11 pages of 1000 keys, where it stops).
func List(ctx context.Context, loc Location, cr Credentials, suffix string, max int) (keys []string, truncated bool, err error) {
	key := loc.Key
	loc.Key = "-" // New wants an object; the prefix is the listing's
	c, err := New(loc, cr)
	if err != nil {
		return nil, false, err
	}
	in := &s3.ListObjectsV2Input{Bucket: &loc.Bucket, Prefix: aws.String(key), MaxKeys: aws.Int32(1000)}
	for pages := 0; ; pages++ {
		out, err := c.s3.ListObjectsV2(ctx, in)
		if err != nil {
			c.loc.Key = key
			return nil, false, c.fail("LIST", err)
		}
		for _, o := range out.Contents {
			if k := aws.ToString(o.Key); strings.HasSuffix(k, suffix) {
				if len(keys) == max {
					return keys, true, nil
				}
				keys = append(keys, k)
			}
		}
		if !aws.ToBool(out.IsTruncated) || out.NextContinuationToken == nil {
			return keys, false, nil
		}
		if pages > max/1000+10 {
			return keys, true, nil // a listing that never ends is not followed forever
		}
		in.ContinuationToken = out.NextContinuationToken
	}
}
