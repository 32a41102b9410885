package s3store

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/fakes3"
)

// A read pinned to an ETag gets the object while it has that ETag, and
// ErrChanged once it was replaced; an unpinned read gets the new object.
func TestOpenPinnedToETag(t *testing.T) {
	srv := fakes3.Start(t, "snaps", map[string]string{"k.tar": "first"})
	c, err := New(Location{Endpoint: srv.Endpoint, Bucket: "snaps", Key: "k.tar"},
		Credentials{AccessKeyID: srv.AccessKeyID, SecretAccessKey: srv.SecretAccessKey})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := c.Head(ctx)
	if err != nil || !st.Exists || st.ETag == "" {
		t.Fatalf("head: %+v %v", st, err)
	}
	read := func(etag string) (string, error) {
		rc, _, err := c.Open(ctx, etag)
		if err != nil {
			return "", err
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		return string(b), err
	}
	if got, err := read(st.ETag); err != nil || got != "first" {
		t.Fatalf("pinned read of the same object: %q %v", got, err)
	}
	srv.PutObject(t, "k.tar", []byte("second"))
	if _, err := read(st.ETag); !errors.Is(err, ErrChanged) {
		t.Fatalf("pinned read of a replaced object: %v, want ErrChanged", err)
	}
	if got, err := read(""); err != nil || got != "second" {
		t.Fatalf("unpinned read: %q %v", got, err)
	}
}
