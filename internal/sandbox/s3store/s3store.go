// Package s3store is the engine's S3 client for workspace snapshots:
// streamed multipart uploads, HEAD, pinned GETs and deletes of one object,
// with errors that never carry a credential. It reads no configuration
// file and no instance metadata: the caller names the endpoint, the region
// and the keys.
package s3store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/redact"
	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// DefaultRegion is the signing region when none is given.
const DefaultRegion = "us-east-1"

// Credentials are an S3 key pair (and optional session token). The zero
// value means no keys: requests then go unsigned.
type Credentials struct {
	AccessKeyID, SecretAccessKey, SessionToken string
}

// Set reports whether both keys are present.
func (c Credentials) Set() bool { return c.AccessKeyID != "" && c.SecretAccessKey != "" }

// EnvCredentials reads the standard AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY
// and AWS_SESSION_TOKEN variables; ok is false unless both keys are set.
func EnvCredentials() (Credentials, bool) {
	c := Credentials{AccessKeyID: os.Getenv("AWS_ACCESS_KEY_ID"), SecretAccessKey: os.Getenv("AWS_SECRET_ACCESS_KEY"),
		SessionToken: os.Getenv("AWS_SESSION_TOKEN")}
	return c, c.Set()
}

// CheckCredentials refuses a partial key pair: both keys or neither.
func CheckCredentials(c Credentials) error {
	if (c.AccessKeyID == "") != (c.SecretAccessKey == "") {
		return errors.New("s3 credentials must include both access_key_id and secret_access_key")
	}
	return nil
}

// Location is one object: the service (Endpoint, "" for AWS; Region) and
// the Bucket and Key.
type Location struct {
	Endpoint, Region, Bucket, Key string
}

// URL is the object's s3://<bucket>/<key> form.
func (l Location) URL() string { return "s3://" + l.Bucket + "/" + l.Key }

// ParseURL splits an s3://<bucket>/<key> URL.
func ParseURL(u string) (bucket, key string, err error) {
	rest, ok := strings.CutPrefix(u, "s3://")
	bucket, key, _ = strings.Cut(rest, "/")
	if !ok || bucket == "" || key == "" || strings.HasSuffix(key, "/") {
		return "", "", fmt.Errorf("%q is not an s3://<bucket>/<key> URL", u)
	}
	return bucket, key, nil
}

// SnapshotKey is the key of snapshot id below prefix: <prefix>/<id>.tar,
// the leading "/" of prefix stripped, as the Python SDK joins S3 prefixes.
func SnapshotKey(prefix, id string) string {
	prefix = strings.TrimPrefix(prefix, "/")
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	return prefix + id + ".tar"
}

// CheckEndpoint accepts "" (AWS) or an http(s) URL with a host and no
// user information.
func CheckEndpoint(endpoint string) error {
	if endpoint == "" {
		return nil
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("endpoint_url must be an http:// or https:// URL with a host")
	}
	if u.User != nil {
		return fmt.Errorf("endpoint_url must not hold credentials")
	}
	return nil
}

// Client reaches one object.
type Client struct {
	s3      *s3.Client
	loc     Location
	secrets redact.Secrets
}

// New returns a client for loc signed with cr (unsigned without keys).
// An endpoint is addressed path-style, as S3-compatible services expect.
func New(loc Location, cr Credentials) (*Client, error) {
	if loc.Bucket == "" || loc.Key == "" {
		return nil, errors.New("s3: a bucket and a key are required")
	}
	if err := CheckEndpoint(loc.Endpoint); err != nil {
		return nil, err
	}
	if err := CheckCredentials(cr); err != nil {
		return nil, err
	}
	region := loc.Region
	if region == "" {
		region = DefaultRegion
	}
	opts := s3.Options{
		Region:                     region,
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
		RetryMaxAttempts:           3,
	}
	if cr.Set() {
		creds := aws.Credentials{AccessKeyID: cr.AccessKeyID, SecretAccessKey: cr.SecretAccessKey, SessionToken: cr.SessionToken}
		opts.Credentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return creds, nil })
	}
	if loc.Endpoint != "" {
		opts.BaseEndpoint = aws.String(loc.Endpoint)
		opts.UsePathStyle = true
	}
	return &Client{s3: s3.New(opts), loc: loc, secrets: redact.NewSecrets(cr.AccessKeyID, cr.SecretAccessKey, cr.SessionToken)}, nil
}

// Location is the object the client reaches.
func (c *Client) Location() Location { return c.loc }

// ObjectState is what a HEAD saw.
type ObjectState struct {
	// Exists is false when there is no object at the key.
	Exists bool
	// ETag (quotes kept, as the service sends it) and Size in bytes.
	ETag string
	Size int64
	// LastModified is the service's time of the object, Unix nanoseconds
	// (0 when it sent none).
	LastModified int64
}

// Head reads the object's ETag and size; it only reads.
func (c *Client) Head(ctx context.Context) (ObjectState, error) {
	out, err := c.s3.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &c.loc.Bucket, Key: &c.loc.Key})
	if isStatus(err, 404) {
		return ObjectState{}, nil
	}
	if err != nil {
		return ObjectState{}, c.fail("HEAD", err)
	}
	st := ObjectState{Exists: true, ETag: aws.ToString(out.ETag), Size: aws.ToInt64(out.ContentLength)}
	if out.LastModified != nil {
		st.LastModified = out.LastModified.UnixNano()
	}
	return st, nil
}

// ErrChanged is wrapped when the object is not the one expected.
var ErrChanged = errors.New("the object changed")

// Open streams the object. With etag set the read is pinned to it: an
// object replaced in between fails with ErrChanged.
func (c *Client) Open(ctx context.Context, etag string) (io.ReadCloser, ObjectState, error) {
	in := &s3.GetObjectInput{Bucket: &c.loc.Bucket, Key: &c.loc.Key}
	if etag != "" {
		in.IfMatch = aws.String(etag)
	}
	out, err := c.s3.GetObject(ctx, in)
	switch {
	case isStatus(err, 412):
		return nil, ObjectState{}, fmt.Errorf("%w: %s no longer has ETag %s", ErrChanged, c.loc.URL(), etag)
	case isStatus(err, 404):
		return nil, ObjectState{}, fmt.Errorf("%s: %w", c.loc.URL(), os.ErrNotExist)
	case err != nil:
		return nil, ObjectState{}, c.fail("GET", err)
	}
	return out.Body, ObjectState{Exists: true, ETag: aws.ToString(out.ETag), Size: aws.ToInt64(out.ContentLength)}, nil
}

// Delete removes the object.
func (c *Client) Delete(ctx context.Context) error {
	if _, err := c.s3.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &c.loc.Bucket, Key: &c.loc.Key}); err != nil {
		return c.fail("DELETE", err)
	}
	return nil
}

// fail is err as a redacted error naming the operation and the object.
func (c *Client) fail(op string, err error) error {
	return errors.New(c.secrets.Text(fmt.Sprintf("s3 %s %s: %v", op, c.loc.URL(), err)))
}

func isStatus(err error, code int) bool {
	var re *awshttp.ResponseError
	return err != nil && errors.As(err, &re) && re.HTTPStatusCode() == code
}
