package checksum

import (
	"bytes"
	"context"
	"crypto/md5"  //nolint:gosec // published checksum, as Terraform's filemd5()
	"crypto/sha1" //nolint:gosec // published checksum, as Terraform's filesha1()
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"hash"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// DigestChunkSize is the size in bytes (1 MiB) of the chunks in which host
// sources are read while hashing, the Python SDK's LocalFile/LocalDir chunk size
// (design/sdk-model.md §2.4). No more than one chunk per reader is held in memory.
const DigestChunkSize = 1 << 20

// DigestSet names the digests computed beside SHA-256, which is always
// computed: Terraform's local provider's set (MD5, SHA-1, SHA-512) costs
// about four SHA-256 passes more, so it is computed only when asked for.
type DigestSet uint8

// The digests a DigestSet may add to SHA-256.
const (
	DigestMD5 DigestSet = 1 << iota
	DigestSHA1
	DigestSHA512
	// AllDigests is every digest of FileDigest.
	AllDigests = DigestMD5 | DigestSHA1 | DigestSHA512
)

// FileDigest is the checksum set of one file, the same names and encodings as
// Terraform's filemd5(), filesha1(), filesha256(), filesha512(),
// filebase64sha256() and filebase64sha512() functions. SHA256 and
// Base64SHA256 are always set; the others only when their digest was asked
// for (see DigestSet), else "".
type FileDigest struct {
	// Size is the number of bytes hashed.
	Size int64
	// MD5, SHA1, SHA256 and SHA512 are lower-case hex digests.
	MD5, SHA1, SHA256, SHA512 string
	// Base64SHA256 and Base64SHA512 are the raw SHA-256 and SHA-512 digests
	// in standard base64 (with padding).
	Base64SHA256, Base64SHA512 string
}

// Has reports whether d holds SHA-256 and every digest of set.
func (d FileDigest) Has(set DigestSet) bool {
	return d.SHA256 != "" && (set&DigestMD5 == 0 || d.MD5 != "") &&
		(set&DigestSHA1 == 0 || d.SHA1 != "") && (set&DigestSHA512 == 0 || d.SHA512 != "")
}

// DigestBytes returns the FileDigest of b with every digest. It never fails.
func DigestBytes(b []byte) FileDigest {
	return DigestBytesWith(b, AllDigests)
}

// DigestBytesWith returns the SHA-256 of b and the digests of set.
func DigestBytesWith(b []byte, set DigestSet) FileDigest {
	d, _ := DigestReaderWith(context.Background(), bytes.NewReader(b), set)
	return d
}

// DigestReader reads r to its end in DigestChunkSize chunks and computes
// every hash of FileDigest in one pass (memory use is one chunk whatever the
// size of the stream). The error is the first read error from r, returned
// unwrapped together with a zero FileDigest.
func DigestReader(r io.Reader) (FileDigest, error) {
	return DigestReaderWith(context.Background(), r, AllDigests)
}

// DigestReaderContext is DigestReader checking ctx between chunks.
func DigestReaderContext(ctx context.Context, r io.Reader) (FileDigest, error) {
	return DigestReaderWith(ctx, r, AllDigests)
}

// DigestReaderWith is DigestReaderContext computing SHA-256 and the digests
// of set only.
func DigestReaderWith(ctx context.Context, r io.Reader, set DigestSet) (FileDigest, error) {
	s256 := sha256.New()
	hs := []hash.Hash{&counted{s256, &hashed.SHA256}}
	var m, s1, s512 hash.Hash
	if set&DigestMD5 != 0 {
		m = md5.New() //nolint:gosec // published checksum
		hs = append(hs, &counted{m, &hashed.MD5})
	}
	if set&DigestSHA1 != 0 {
		s1 = sha1.New() //nolint:gosec // published checksum
		hs = append(hs, &counted{s1, &hashed.SHA1})
	}
	if set&DigestSHA512 != 0 {
		s512 = sha512.New()
		hs = append(hs, &counted{s512, &hashed.SHA512})
	}
	var w io.Writer = hs[0]
	if len(hs) > 1 {
		f := newFanout(hs...)
		defer f.Close()
		w = f
	}
	n, err := CopyChunks(ctx, w, r)
	if err != nil {
		return FileDigest{}, err
	}
	sum256 := s256.Sum(nil)
	d := FileDigest{Size: n, SHA256: hex.EncodeToString(sum256), Base64SHA256: base64.StdEncoding.EncodeToString(sum256)}
	if m != nil {
		d.MD5 = hex.EncodeToString(m.Sum(nil))
	}
	if s1 != nil {
		d.SHA1 = hex.EncodeToString(s1.Sum(nil))
	}
	if s512 != nil {
		sum512 := s512.Sum(nil)
		d.SHA512, d.Base64SHA512 = hex.EncodeToString(sum512), base64.StdEncoding.EncodeToString(sum512)
	}
	return d, nil
}

// HashedBytes counts the bytes each algorithm has hashed through
// DigestReaderWith (and the functions built on it) since the process
// started: what a plan of a large file costs, measured without a clock.
type HashedBytes struct {
	MD5, SHA1, SHA256, SHA512 int64
}

var hashed struct{ MD5, SHA1, SHA256, SHA512 atomic.Int64 }

// Hashed returns the byte counts so far.
func Hashed() HashedBytes {
	return HashedBytes{MD5: hashed.MD5.Load(), SHA1: hashed.SHA1.Load(), SHA256: hashed.SHA256.Load(), SHA512: hashed.SHA512.Load()}
}

// counted is a hash that adds what it consumes to n.
type counted struct {
	hash.Hash
	n *atomic.Int64
}

func (c *counted) Write(p []byte) (int, error) {
	c.n.Add(int64(len(p)))
	return c.Hash.Write(p)
}

// fanoutSerialBelow is the write size under which fanout hashes serially:
// for small writes, handing chunks to goroutines costs more than it saves.
const fanoutSerialBelow = 64 << 10

// fanout is an io.Writer that feeds every write to several hashes at once,
// one goroutine per hash, so that a file's MD5, SHA-1, SHA-256 and SHA-512
// take about as long as the slowest of them on a machine with cores to
// spare. Write returns once every hash has consumed the bytes, so the
// caller may reuse its buffer. Close stops the goroutines.
type fanout struct {
	hs []hash.Hash
	in []chan []byte
	wg sync.WaitGroup
}

func newFanout(hs ...hash.Hash) *fanout {
	f := &fanout{hs: hs}
	for _, h := range hs {
		c := make(chan []byte)
		f.in = append(f.in, c)
		go func() {
			for p := range c {
				h.Write(p)
				f.wg.Done()
			}
		}()
	}
	return f
}

func (f *fanout) Write(p []byte) (int, error) {
	if len(p) < fanoutSerialBelow {
		for _, h := range f.hs {
			h.Write(p)
		}
		return len(p), nil
	}
	f.wg.Add(len(f.in))
	for _, c := range f.in {
		c <- p
	}
	f.wg.Wait()
	return len(p), nil
}

// Close ends the hashing goroutines; the writer must not be used after.
func (f *fanout) Close() {
	for _, c := range f.in {
		close(c)
	}
}

var chunkPool = sync.Pool{New: func() any { b := make([]byte, DigestChunkSize); return &b }}

// CopyChunks copies r into w in DigestChunkSize reads through a pooled
// buffer (never through WriterTo/ReaderFrom shortcuts, so every byte passes
// through w), checking ctx before every chunk. Every streamed copy of the
// engine goes through it, so no more than one chunk per stream is held in
// memory.
func CopyChunks(ctx context.Context, w io.Writer, r io.Reader) (int64, error) {
	bp := chunkPool.Get().(*[]byte) //nolint:forcetypeassert // the pool holds only *[]byte
	defer chunkPool.Put(bp)
	buf := *bp
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		n, err := r.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return total, werr
			}
			total += int64(n)
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// TreeFile is one regular file of a host directory scanned by
// hostsource.Policy.ScanDir.
type TreeFile struct {
	// Rel is the POSIX path of the file relative to the scanned directory.
	Rel string
	// Size is the number of bytes hashed.
	Size int64
	// SHA256 is the lower-case hex SHA-256 of the content.
	SHA256 string
	// Perm holds the permission bits (0o777 mask) of the host file.
	Perm fs.FileMode
}

// TreeDigest is the result of hostsource.Policy.ScanDir: every regular file below a host
// directory with its checksum.
//
// SHA256 (shown to users as tree_sha256) is the lower-case hex SHA-256 of
// the concatenated lines "<sha256 hex>  <rel>\n" (two spaces) over Files in
// order, that is exactly the output of GNU sha256sum for the files listed in
// byte order (LC_ALL=C sort); names holding a backslash or a newline are
// escaped the way sha256sum escapes them. A user reproduces it with:
//
//	cd <root> && find . -type f -printf '%P\n' | LC_ALL=C sort \
//	  | xargs -r -d '\n' sha256sum | sha256sum
//
// An empty tree has SHA256 "e3b0c442...b855", the SHA-256 of no bytes.
type TreeDigest struct {
	// Root is the absolute host path of the scanned directory (symlinks not
	// resolved).
	Root string
	// Files lists the regular files, sorted by Rel in byte order; never nil.
	Files []TreeFile
	// TotalBytes is the sum of the files' sizes in bytes.
	TotalBytes int64
	// SHA256 is the tree checksum described above.
	SHA256 string
	// Source is the source as the user gave it (relative to the base
	// directory unless absolute), for reopening files and for error
	// messages; "" for a tree built by hand.
	Source string
}

// TreeSHA256 returns the tree checksum of files (TreeDigest.SHA256, shown
// as tree_sha256): the lower-case hex SHA-256 of the GNU sha256sum lines
// "<sha256 hex>  <rel>\n" of the files sorted by Rel in byte order
// (LC_ALL=C sort). files is not modified; when it is not sorted a sorted
// copy is hashed. No files gives the SHA-256 of no bytes.
func TreeSHA256(files []TreeFile) string {
	byRel := func(a, b TreeFile) int { return strings.Compare(a.Rel, b.Rel) }
	if !slices.IsSortedFunc(files, byRel) {
		files = slices.Clone(files)
		slices.SortFunc(files, byRel)
	}
	h := sha256.New()
	for _, f := range files {
		writeSumLine(h, f.SHA256, f.Rel)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// writeSumLine writes one GNU sha256sum output line. As sha256sum does, a
// name containing a backslash or a newline is escaped ("\\", "\n") and the
// line is prefixed with a backslash.
func writeSumLine(h hash.Hash, sum, rel string) {
	if strings.ContainsAny(rel, "\\\n") {
		rel = strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(rel)
		_, _ = io.WriteString(h, `\`)
	}
	_, _ = io.WriteString(h, sum+"  "+rel+"\n")
}
