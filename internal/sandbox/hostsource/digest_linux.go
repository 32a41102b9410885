//go:build linux

package hostsource

import (
	"context"
	"encoding/json"
	"os"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/checksum"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/digestcache"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/progress"
	"golang.org/x/sys/unix"
)

// digestOpened returns the SHA-256 and the digests of want of the opened
// host file f, from the digest cache when f's stat still matches what it
// was when last hashed (start is when the caller began, before opening f)
// and the cache holds them, else by reading it once.
func digestOpened(ctx context.Context, f *os.File, start int64, want checksum.DigestSet) (checksum.FileDigest, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return checksum.DigestReaderWith(ctx, f, want)
	}
	set, key := digestcache.Open(f.Name()), digestcache.StatOf(&st)
	var cached checksum.FileDigest
	if v, ok := set.Lookup("", key); ok {
		if json.Unmarshal([]byte(v), &cached) != nil || cached.Size != key.Size {
			cached = checksum.FileDigest{}
		}
		if cached.Has(want) {
			return cached, nil
		}
	}
	prog := progress.Start(ctx, "hash", f.Name(), 1, key.Size)
	d, err := checksum.DigestReaderWith(ctx, prog.Reader(f), want)
	prog.Add(1, 0)
	prog.Finish(false)
	if err != nil || d.Size != key.Size {
		return d, err
	}
	if cached.SHA256 == d.SHA256 {
		// Keep the digests an earlier read with another set recorded.
		d = mergeDigests(d, cached)
	}
	if b, err := json.Marshal(d); err == nil {
		set.Store("", key, start, string(b))
		_ = set.Save() // a cache that cannot be written only costs speed
	}
	return d, nil
}

// mergeDigests fills the digests d lacks from c (of the same content).
func mergeDigests(d, c checksum.FileDigest) checksum.FileDigest {
	if d.MD5 == "" {
		d.MD5 = c.MD5
	}
	if d.SHA1 == "" {
		d.SHA1 = c.SHA1
	}
	if d.SHA512 == "" {
		d.SHA512, d.Base64SHA512 = c.SHA512, c.Base64SHA512
	}
	return d
}
