// Package fakes3 is test support for storage mounts: an in-memory S3
// server on 127.0.0.1 seeded with one bucket, the rclone configuration that
// reaches it, and the checks that find rclone and FUSE on this machine.
// Only tests import it.
//
// The server checks that every request names its access key ID (SigV4 or
// SigV2 header, or a presigned URL), so that a mount given the wrong key
// fails; it does not verify signatures.
package fakes3

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// Server is a running fake S3 endpoint with one bucket.
type Server struct {
	// Endpoint is the base URL, "http://127.0.0.1:<port>" (path-style
	// bucket addressing).
	Endpoint string
	// Bucket is the bucket Start created.
	Bucket string
	// AccessKeyID and SecretAccessKey are random per server; requests
	// naming another key ID are refused with InvalidAccessKeyId.
	AccessKeyID, SecretAccessKey string

	writes atomic.Int64
}

// Start serves a fresh in-memory S3 on 127.0.0.1 with bucket holding files
// (object key to content; keys with slashes read as directories through
// rclone). The server stops when the test ends.
func Start(t testing.TB, bucket string, files map[string]string) *Server {
	t.Helper()
	return StartOn(t, "127.0.0.1", bucket, files)
}

// StartOn is Start listening on host, an address of this machine (such as
// the bridge address pods of the test cluster reach it by).
func StartOn(t testing.TB, host, bucket string, files map[string]string) *Server {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket(bucket); err != nil {
		t.Fatalf("fakes3: create bucket %q: %v", bucket, err)
	}
	// The HTTP API records Last-Modified as metadata on upload; seeding
	// through the backend must too, or rclone warns on every object.
	now := time.Now().UTC().Format(http.TimeFormat)
	for key, content := range files {
		meta := map[string]string{"Last-Modified": now}
		if _, err := backend.PutObject(bucket, key, meta, strings.NewReader(content), int64(len(content)), nil); err != nil {
			t.Fatalf("fakes3: put %s/%s: %v", bucket, key, err)
		}
	}
	s := &Server{Bucket: bucket, AccessKeyID: "AK" + randomHex(t, 9), SecretAccessKey: randomHex(t, 20)}
	faker := gofakes3.New(backend, gofakes3.WithAutoBucket(false))

	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatalf("fakes3: listen: %v", err)
	}
	srv := &http.Server{Handler: s.authorize(ifMatch(backend, faker.Server()))} //nolint:gosec // a test server on a local address, stopped at cleanup
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	s.Endpoint = "http://" + ln.Addr().String()
	return s
}

// Writes counts the requests that could have changed the bucket (PUT, POST
// and DELETE) since Start, refused ones included: a read-only mount must
// leave it at zero.
func (s *Server) Writes() int64 { return s.writes.Load() }

// authorize refuses a request that does not name the server's access key ID.
func (s *Server) authorize(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPut, http.MethodPost, http.MethodDelete:
			s.writes.Add(1)
		}
		if keyID(r) != s.AccessKeyID {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?>`+
				`<Error><Code>InvalidAccessKeyId</Code><Message>The AWS Access Key Id you provided does not exist in our records.</Message></Error>`)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ifMatch answers a GET or HEAD whose If-Match names another ETag than the
// object's with 412 Precondition Failed, as S3 does (gofakes3 honours the
// header only on PUT), so a read pinned to an ETag can be tested.
func ifMatch(b gofakes3.Backend, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		want := r.Header.Get("If-Match")
		bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		if want != "" && key != "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			if obj, err := b.HeadObject(bucket, key); err == nil && want != `"`+hex.EncodeToString(obj.Hash)+`"` && want != "*" {
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(http.StatusPreconditionFailed)
				if r.Method == http.MethodGet {
					fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?>`+
						`<Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message></Error>`)
				}
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// keyID is the access key ID a request is signed with, or "".
func keyID(r *http.Request) string {
	auth := r.Header.Get("Authorization")
	if _, cred, ok := strings.Cut(auth, "Credential="); ok { // SigV4
		id, _, _ := strings.Cut(cred, "/")
		return id
	}
	if rest, ok := strings.CutPrefix(auth, "AWS "); ok { // SigV2
		id, _, _ := strings.Cut(rest, ":")
		return id
	}
	if cred := r.URL.Query().Get("X-Amz-Credential"); cred != "" { // presigned SigV4
		id, _, _ := strings.Cut(cred, "/")
		return id
	}
	return r.URL.Query().Get("AWSAccessKeyId") // presigned SigV2
}

// RcloneConfig is an rclone configuration with one S3 remote named remote
// that reaches the server, in the form the provider generates (no region,
// no force_path_style: rclone addresses an "Other" provider path-style).
func (s *Server) RcloneConfig(remote string) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "[%s]\n", remote)
	fmt.Fprintf(&b, "type = s3\nprovider = Other\nendpoint = %s\nenv_auth = false\n", s.Endpoint)
	fmt.Fprintf(&b, "access_key_id = %s\nsecret_access_key = %s\n", s.AccessKeyID, s.SecretAccessKey)
	return b.String()
}

func randomHex(t testing.TB, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("fakes3: random key: %v", err)
	}
	return strings.ToUpper(hex.EncodeToString(b))
}
