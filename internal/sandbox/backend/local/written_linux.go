//go:build linux

package local

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/digestcache"
)

// writtenStamp is the stamp of the just-written, still open temporary file
// f with content sum, or nil when its filesystem's times are coarse.
func writtenStamp(f int, sum string) *writtenFile {
	var st unix.Stat_t
	if unix.Fstat(f, &st) != nil {
		return nil
	}
	key := digestcache.StatOf(&st)
	if !digestcache.FineTimes(f, key) {
		return nil
	}
	return &writtenFile{dev: key.Dev, ino: key.Ino, size: key.Size, mtime: key.MtimeNs, sum: sum}
}

// note remembers the write w of rel (nil: forget an earlier one).
func (b *Backend) note(rel string, w *writtenFile) {
	if b.written == nil {
		return
	}
	b.written.mu.Lock()
	defer b.written.mu.Unlock()
	switch {
	case w == nil:
		delete(b.written.m, rel)
	case len(b.written.m) >= maxWritten:
		b.written.m = map[string]writtenFile{rel: *w}
	default:
		b.written.m[rel] = *w
	}
}

// matches reports whether key is still the file the write w left: same
// inode, size and modification time (a change of content after the write
// moves the modification time; the provider's own chmod, chgrp and chown
// move only the change time).
func (w writtenFile) matches(key digestcache.Stat) bool {
	return w.dev == key.Dev && w.ino == key.Ino && w.size == key.Size && w.mtime == key.MtimeNs
}

// takeWritten returns and forgets the write of rel and of every path
// below it; dir asks for the paths below.
func (b *Backend) takeWritten(rel string, dir bool) map[string]writtenFile {
	if b.written == nil {
		return nil
	}
	b.written.mu.Lock()
	defer b.written.mu.Unlock()
	out := map[string]writtenFile{}
	prefix := rel + "/"
	for p, w := range b.written.m {
		if p == rel || (dir && (rel == "." || strings.HasPrefix(p, prefix))) {
			out[p] = w
			delete(b.written.m, p)
		}
	}
	return out
}

// RememberWritten records in the digest cache the digests of the files
// this backend wrote at rel (a file) or below it (a directory), once the
// provider has made its last change to them (content, mode, group, owner):
// each is stat-ed again, and recorded when its inode, size and modification
// time are still those the write left. The next plan then finds their
// digests by stat. Only a backend made with KeepDigests records anything;
// failures only cost a hash on the next plan.
func (b *Backend) RememberWritten(ctx context.Context, rel string) {
	if b.written == nil || ctx.Err() != nil {
		return
	}
	rel, err := cleanRel("remember", rel)
	if err != nil {
		return
	}
	f, err := b.open("remember", rel, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK)
	if err != nil {
		b.takeWritten(rel, true)
		return
	}
	defer f.Close()
	st, err := f.fstat()
	if err != nil {
		return
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		w, ok := b.takeWritten(rel, false)[rel]
		key := digestcache.StatOf(&st)
		if ok && w.matches(key) {
			set := digestcache.Open(fileScope(filepath.Join(b.root, filepath.FromSlash(rel))))
			set.StoreWritten("", key, w.sum)
			_ = set.Save() // a cache that cannot be written only costs speed
		}
	case unix.S_IFDIR:
		written := b.takeWritten(rel, true)
		if len(written) == 0 {
			return
		}
		wk := &walker{ctx: ctx, digests: digestcache.Open(filepath.Join(b.root, filepath.FromSlash(rel))), written: func(name string, key digestcache.Stat) (string, bool) {
			w, ok := written[joinRel(rel, name)]
			return w.sum, ok && w.matches(key)
		}}
		if wk.walkDir(f.file(rel), "") == nil {
			_ = wk.digests.Save()
		}
	}
}

// hashCached is HashFile through the digest cache of the single file rel
// (open as f; start is when HashFile began).
func (b *Backend) hashCached(ctx context.Context, f *os.File, rel string, start int64) (string, int64, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return hashStream(ctx, f)
	}
	key := digestcache.StatOf(&st)
	set := digestcache.Open(fileScope(filepath.Join(b.root, filepath.FromSlash(rel))))
	if sum, ok := set.Lookup("", key); ok {
		return sum, key.Size, nil
	}
	sum, n, err := hashStream(ctx, f)
	if err == nil && n == key.Size {
		set.Store("", key, start, sum)
		_ = set.Save() // a cache that cannot be written only costs speed
	}
	return sum, n, err
}

// fileScope is the digest cache scope of a single workspace file: apart
// from a host source's scope at the same path, which stores other digests.
func fileScope(abs string) string { return "workspace-file:" + abs }

func joinRel(dir, name string) string {
	if dir == "." || dir == "" {
		return name
	}
	return dir + "/" + name
}
