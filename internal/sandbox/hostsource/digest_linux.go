//go:build linux

package hostsource

import (
	"context"
	"encoding/json"
	"os"

	"golang.org/x/sys/unix"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/digestcache"
)

// digestOpened returns the checksums of the opened host file f, from the
// digest cache when f's stat still matches what it was when last hashed
// (start is when the caller began, before opening f), else by reading it.
func digestOpened(ctx context.Context, f *os.File, start int64) (sandbox.FileDigest, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return sandbox.DigestReaderContext(ctx, f)
	}
	set, key := digestcache.Open(f.Name()), digestcache.StatOf(&st)
	if v, ok := set.Lookup("", key); ok {
		var d sandbox.FileDigest
		if json.Unmarshal([]byte(v), &d) == nil && d.Size == key.Size && d.SHA256 != "" {
			return d, nil
		}
	}
	prog := sandbox.StartProgress(ctx, "hash", f.Name(), 1, key.Size)
	d, err := sandbox.DigestReaderContext(ctx, prog.Reader(f))
	prog.Add(1, 0)
	prog.Finish(false)
	if err != nil || d.Size != key.Size {
		return d, err
	}
	if b, err := json.Marshal(d); err == nil {
		set.Store("", key, start, string(b))
		_ = set.Save() // a cache that cannot be written only costs speed
	}
	return d, nil
}
