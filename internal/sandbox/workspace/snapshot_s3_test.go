package workspace

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/s3store"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/fakes3"
)

// TestSnapshotS3RoundTrip uploads an archive larger than one part, reads
// the object back from the server, restores it into a new workspace and
// removes it.
func TestSnapshotS3RoundTrip(t *testing.T) {
	srv := fakes3.Start(t, "snaps", nil)
	eng, _ := newEngine(t)
	ctx := context.Background()
	w, err := eng.CreateLocal(ctx, LocalSpec{})
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, s3store.PartSize+12345)
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Backend.WriteFile(ctx, "data/big.bin", bytes.NewReader(big), 0o640, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Backend.WriteFile(ctx, "tmp.key", strings.NewReader("secret"), 0o600, ""); err != nil {
		t.Fatal(err)
	}
	cr := s3store.Credentials{AccessKeyID: srv.AccessKeyID, SecretAccessKey: srv.SecretAccessKey}
	target := S3Target{Endpoint: srv.Endpoint, Bucket: srv.Bucket, Prefix: "/runs/a", Credentials: cr}
	res, err := w.SnapshotS3(ctx, target, SnapshotRequest{SnapshotID: "s1", Exclude: []string{"tmp.key"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Location.Key != "runs/a/s1.tar" || res.Location.URL() != "s3://snaps/runs/a/s1.tar" {
		t.Fatalf("location %+v", res.Location)
	}
	obj, ok := srv.Object(t, "runs/a/s1.tar")
	sum := sha256.Sum256(obj)
	if !ok || int64(len(obj)) != res.Size || hex.EncodeToString(sum[:]) != res.SHA256 {
		t.Fatalf("object of %d bytes (exists %v), result %d bytes sha256 %s", len(obj), ok, res.Size, res.SHA256)
	}
	members := tarMembers(t, obj)
	bigSum := sha256.Sum256(big)
	if members["./data/big.bin"] != hex.EncodeToString(bigSum[:]) || members["./tmp.key"] != "" {
		t.Fatalf("members %v", members)
	}
	if keys := srv.Keys(t); len(keys) != 1 {
		t.Fatalf("bucket holds %v, want only the snapshot", keys)
	}
	st, err := eng.ReadObject(ctx, res.Location, cr)
	if err != nil || !st.Exists || st.ETag != res.ETag || st.Size != res.Size {
		t.Fatalf("HEAD %+v (%v), result %+v", st, err, res)
	}

	w2, err := eng.CreateLocal(ctx, LocalSpec{})
	if err != nil {
		t.Fatal(err)
	}
	src := RestoreSource{S3: &res.Location, Credentials: cr}
	if _, err := w2.RestoreFrom(ctx, src, strings.Repeat("0", 64)); !errors.Is(err, ErrArchiveChanged) {
		t.Fatalf("a wrong sha256 was accepted: %v", err)
	}
	if _, err := w2.RestoreFrom(ctx, src, res.SHA256); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(w2.Root, "data/big.bin"))
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("restored big.bin: %d bytes, %v", len(got), err)
	}

	if err := eng.RemoveObject(ctx, res.Location, cr, `"other"`, res.Size); !errors.Is(err, ErrArchiveChanged) {
		t.Fatalf("an object with another ETag was removed: %v", err)
	}
	if err := eng.RemoveObject(ctx, res.Location, cr, res.ETag, res.Size); err != nil {
		t.Fatal(err)
	}
	if _, ok := srv.Object(t, "runs/a/s1.tar"); ok {
		t.Fatal("object left after RemoveObject")
	}
	if st, err := eng.ReadObject(ctx, res.Location, cr); err != nil || st.Exists {
		t.Fatalf("HEAD after removal: %+v %v", st, err)
	}
}

// TestSnapshotS3ErrorsAreRedacted: a refused upload leaves no object and
// its error names no secret.
func TestSnapshotS3ErrorsAreRedacted(t *testing.T) {
	srv := fakes3.Start(t, "snaps", nil)
	eng, _ := newEngine(t)
	ctx := context.Background()
	w, err := eng.CreateLocal(ctx, LocalSpec{})
	if err != nil {
		t.Fatal(err)
	}
	cr := s3store.Credentials{AccessKeyID: "AKWRONGKEYID", SecretAccessKey: "wrong-secret-value"}
	_, err = w.SnapshotS3(ctx, S3Target{Endpoint: srv.Endpoint, Bucket: srv.Bucket, Credentials: cr}, SnapshotRequest{SnapshotID: "s1"})
	if err == nil || strings.Contains(err.Error(), "AKWRONGKEYID") || strings.Contains(err.Error(), "wrong-secret-value") {
		t.Fatalf("error %v", err)
	}
	if keys := srv.Keys(t); len(keys) != 0 {
		t.Fatalf("a refused upload left %v", keys)
	}
	if _, err := w.SnapshotS3(ctx, S3Target{Endpoint: srv.Endpoint, Bucket: srv.Bucket,
		Credentials: s3store.Credentials{AccessKeyID: "only-one"}}, SnapshotRequest{SnapshotID: "s1"}); err == nil {
		t.Fatal("a partial key pair was accepted")
	}
}

// tarMembers maps each member name to the SHA-256 of its content ("-" for
// non-files).
func tarMembers(t *testing.T, archive []byte) map[string]string {
	t.Helper()
	out := map[string]string{}
	tr := tar.NewReader(bytes.NewReader(archive))
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		if _, err := io.Copy(h, tr); err != nil {
			t.Fatal(err)
		}
		out[hdr.Name] = "-"
		if hdr.Typeflag == tar.TypeReg {
			out[hdr.Name] = hex.EncodeToString(h.Sum(nil))
		}
	}
}
