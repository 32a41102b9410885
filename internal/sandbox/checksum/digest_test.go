package checksum

import (
	"bytes"
	"context"
	"crypto/md5"  //nolint:gosec // checking the published checksum
	"crypto/sha1" //nolint:gosec // checking the published checksum
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
)

func TestDigestBytesKnownVectors(t *testing.T) {
	d := DigestBytes([]byte("hello\n"))
	want := FileDigest{
		Size:         6,
		MD5:          "b1946ac92492d2347c6235b4d2611184",
		SHA1:         "f572d396fae9206628714fb2ce00f72e94f2258f",
		SHA256:       "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03",
		SHA512:       "e7c22b994c59d9cf2b48e549b1e24666636045930d3da7c1acb299d1c3b7f931f94aae41edda2c2b207a36e10f8bcb8d45223e54878f5b316e7ce3b6bc019629",
		Base64SHA256: "WJG1tSLV3whtD/CxEPvZ0hu0/HFjrzTQgoai6Eb2vgM=",
		Base64SHA512: "58IrmUxZ2c8rSOVJseJGZmNgRZMNPafBrLKZ0cO3+TH5Sq5B7dosKyB6NuEPi8uNRSI+VIePWzFufOO2vAGWKQ==",
	}
	if d != want {
		t.Fatalf("DigestBytes(hello\\n) =\n%+v\nwant\n%+v", d, want)
	}
	empty := DigestBytes(nil)
	if empty.Size != 0 || empty.SHA256 != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Fatalf("empty digest = %+v", empty)
	}
}

// independentDigest computes the expected digest with crypto/* directly.
func independentDigest(b []byte) FileDigest {
	m := md5.Sum(b)   //nolint:gosec
	s1 := sha1.Sum(b) //nolint:gosec
	s256 := sha256.Sum256(b)
	s512 := sha512.Sum512(b)
	return FileDigest{
		Size:         int64(len(b)),
		MD5:          hex.EncodeToString(m[:]),
		SHA1:         hex.EncodeToString(s1[:]),
		SHA256:       hex.EncodeToString(s256[:]),
		SHA512:       hex.EncodeToString(s512[:]),
		Base64SHA256: base64.StdEncoding.EncodeToString(s256[:]),
		Base64SHA512: base64.StdEncoding.EncodeToString(s512[:]),
	}
}

func TestDigestReaderMatchesCrypto(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{0, 1, DigestChunkSize - 1, DigestChunkSize, DigestChunkSize + 1, 3*DigestChunkSize + 17} {
		b := make([]byte, size)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		got, err := DigestReader(iotest.HalfReader(bytes.NewReader(b)))
		if err != nil {
			t.Fatal(err)
		}
		if want := independentDigest(b); got != want {
			t.Errorf("size %d: got %+v want %+v", size, got, want)
		}
	}
}

// TestDigestReaderWithSets: each set computes SHA-256 and exactly its
// digests (the others ""), matching crypto/* on sizes around the chunk and
// fan-out thresholds, in one pass of the reader: the bytes each algorithm
// hashed are the stream's size or zero.
func TestDigestReaderWithSets(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	b := make([]byte, 2*DigestChunkSize+fanoutSerialBelow+5)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	all := independentDigest(b)
	for _, set := range []DigestSet{0, DigestMD5, DigestSHA1, DigestSHA512, DigestMD5 | DigestSHA512, AllDigests} {
		want := FileDigest{Size: all.Size, SHA256: all.SHA256, Base64SHA256: all.Base64SHA256}
		n := map[DigestSet]int64{}
		if set&DigestMD5 != 0 {
			want.MD5, n[DigestMD5] = all.MD5, all.Size
		}
		if set&DigestSHA1 != 0 {
			want.SHA1, n[DigestSHA1] = all.SHA1, all.Size
		}
		if set&DigestSHA512 != 0 {
			want.SHA512, want.Base64SHA512, n[DigestSHA512] = all.SHA512, all.Base64SHA512, all.Size
		}
		before := Hashed()
		r := &countingReader{r: iotest.HalfReader(bytes.NewReader(b))}
		got, err := DigestReaderWith(context.Background(), r, set)
		after := Hashed()
		if err != nil {
			t.Fatal(err)
		}
		if got != want || !got.Has(set) {
			t.Errorf("set %03b: got %+v want %+v", set, got, want)
		}
		if r.n != all.Size {
			t.Errorf("set %03b: read %d bytes, want one pass of %d", set, r.n, all.Size)
		}
		if after.SHA256-before.SHA256 != all.Size || after.MD5-before.MD5 != n[DigestMD5] ||
			after.SHA1-before.SHA1 != n[DigestSHA1] || after.SHA512-before.SHA512 != n[DigestSHA512] {
			t.Errorf("set %03b: hashed %+v bytes, want SHA-256 %d and %v", set,
				HashedBytes{after.MD5 - before.MD5, after.SHA1 - before.SHA1, after.SHA256 - before.SHA256, after.SHA512 - before.SHA512}, all.Size, n)
		}
	}
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func TestDigestReaderError(t *testing.T) {
	boom := errors.New("boom")
	d, err := DigestReader(iotest.ErrReader(boom))
	if !errors.Is(err, boom) || d != (FileDigest{}) {
		t.Fatalf("got %+v, %v", d, err)
	}
}

func TestTreeSHA256Lines(t *testing.T) {
	files := []TreeFile{{Rel: "a b", SHA256: "11"}, {Rel: `x\y`, SHA256: "22"}, {Rel: "n\nl", SHA256: "33"}}
	// Hashed in byte order of Rel whatever the input order.
	lines := "11  a b\n" + `\33  n\nl` + "\n" + `\22  x\\y` + "\n"
	sum := sha256.Sum256([]byte(lines))
	if got, want := TreeSHA256(files), hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("TreeSHA256 = %s, want %s", got, want)
	}
	if files[1].Rel != `x\y` {
		t.Fatal("TreeSHA256 reordered its argument")
	}
	if got := TreeSHA256(nil); got != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Fatalf("empty tree %s", got)
	}
}
