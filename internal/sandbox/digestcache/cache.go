// Package digestcache remembers the digests of files by what a change to a
// file must alter (device, inode, size, modification and change times in
// nanoseconds), as Git's index does, so that a refresh of an unchanged tree
// stats its files instead of reading them.
//
// It is only a cache: a missing, deleted, corrupt or foreign cache file
// gives the same digests, computed again. Entries live in files under the
// user's cache directory (never in a workspace or a source), one file per
// scope (a copied tree or a single file), written atomically.
//
// An entry is trusted only when the file's stat matches it exactly and the
// file's modification and change times are older than the moment it was
// hashed by more than Granularity: a file modified within the timestamp
// granularity of the hash ("racily clean", in Git's words) could have
// changed without its times moving, so it is hashed again.
package digestcache

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Env names the variable that sets where the cache lives: a directory, or
// "off" to disable it. Unset, it is <user cache dir>/terraform-provider-sandbox/digests.
const Env = "SANDBOX_DIGEST_CACHE"

// Granularity is how much older than the moment of hashing a file's times
// must be for its entry to be trusted: it covers filesystems whose
// timestamps have one- or two-second resolution and the coarse kernel clock
// that stamps files on the others.
const Granularity = 2 * time.Second

// format is written into every cache file; a file of another format is
// ignored.
const format = 1

// Stat is what a change to a file's content must alter.
type Stat struct {
	Dev, Ino         uint64
	Size             int64
	MtimeNs, CtimeNs int64
}

type entry struct {
	Stat
	// HashedAt is when the file was stat-ed before it was hashed, in
	// nanoseconds since the epoch.
	HashedAt int64 `json:"h"`
	// Value is the digest, in the caller's encoding.
	Value string `json:"v"`
	// Written marks the digest of content this provider wrote itself, with
	// the stat taken after its last change on a filesystem with
	// fine-grained change times (see StoreWritten): not racy.
	Written bool `json:"w,omitempty"`
	// Seal is the entry's HMAC in a sealed cache (see SetKey).
	Seal string `json:"m,omitempty"`
}

type file struct {
	Format  int              `json:"format"`
	Entries map[string]entry `json:"entries"`
}

// Dir returns the cache directory, or "" when the cache is off (or no user
// cache directory is known).
func Dir() string {
	switch v := os.Getenv(Env); v {
	case "off":
		return ""
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		return filepath.Join(base, "terraform-provider-sandbox", "digests")
	default:
		return v
	}
}

// Set is the cache of one scope, loaded once; Lookup and Store may be
// called from several goroutines. A nil *Set caches nothing.
type Set struct {
	path string
	now  func() time.Time
	key  []byte // sealed under key when not nil

	mu      sync.Mutex
	old     map[string]entry
	seen    map[string]entry
	changed bool
}

// Open loads the cache of scope (an absolute host path: the root of a tree,
// or a file). It returns nil when the cache is off, and when the cache
// directory lies inside the tree scope names: its files would be part of
// what it caches, and every plan would see them change.
func Open(scope string) *Set {
	dir := Dir()
	if dir == "" || within(dir, scope) {
		return nil
	}
	sum := sha256.Sum256([]byte(scope))
	s := &Set{path: filepath.Join(dir, hex.EncodeToString(sum[:16])+".json"), now: time.Now, seen: map[string]entry{}, key: currentKey()}
	s.old = load(s.path)
	if s.key != nil {
		for name, e := range s.old {
			if !sealed(s.key, name, e) {
				delete(s.old, name)
			}
		}
	}
	return s
}

func load(path string) map[string]entry {
	b, err := os.ReadFile(path) //nolint:gosec // the cache's own file
	if err != nil {
		return map[string]entry{}
	}
	var f file
	if json.Unmarshal(b, &f) != nil || f.Format != format || f.Entries == nil {
		return map[string]entry{}
	}
	return f.Entries
}

// Start returns the moment a hash begins, to pass to Store; take it before
// the file is stat-ed.
func (s *Set) Start() int64 {
	if s == nil {
		return 0
	}
	return s.now().UnixNano()
}

// Lookup returns the digest stored for name when st matches its entry and
// the entry is not racily clean.
func (s *Set) Lookup(name string, st Stat) (string, bool) {
	if s == nil {
		return "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.old[name]
	if !ok || e.Stat != st || (!e.Written && racy(e)) {
		return "", false
	}
	s.seen[name] = e
	return e.Value, true
}

// sealed returns e with its seal when the set is sealed.
func (s *Set) sealed(name string, e entry) entry {
	if s.key != nil {
		e.Seal = seal(s.key, name, e)
	}
	return e
}

func racy(e entry) bool {
	limit := e.HashedAt - int64(Granularity)
	return e.MtimeNs >= limit || e.CtimeNs >= limit
}

// Store records the digest value of name, whose stat was st when hashing
// began at start (from Start).
func (s *Set) Store(name string, st Stat, start int64, value string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen[name] = s.sealed(name, entry{Stat: st, HashedAt: start, Value: value})
	s.changed = true
}

// Save writes the entries looked up or stored since Open, dropping the
// others (files no longer there); nothing is written when every lookup hit
// and none was dropped. Errors are ignored by callers: a cache that cannot
// be written only costs speed.
func (s *Set) Save() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.changed && len(s.seen) == len(s.old) {
		return nil
	}
	b, err := json.Marshal(file{Format: format, Entries: s.seen})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	s.old, s.seen, s.changed = s.seen, map[string]entry{}, false
	return nil
}

// Remove deletes the cache of scope (tests; a user may simply delete the
// directory).
func Remove(scope string) error {
	s := Open(scope)
	if s == nil {
		return nil
	}
	err := os.Remove(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// within reports whether the directory dir is root or lies below it; root
// is compared only when it is an absolute path.
func within(dir, root string) bool {
	if !filepath.IsAbs(root) {
		return false
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(filepath.Clean(root), abs)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// InsideError is the error of CheckOutside: the cache directory lies
// inside a tree that is hashed, so its own files would change the tree.
type InsideError struct{ Dir, Root string }

func (e *InsideError) Error() string {
	return fmt.Sprintf("the digest cache directory %s (%s) lies inside %s, which is hashed: every plan would see the cache's own files change; set %s to a directory outside every source and workspace, or to off",
		e.Dir, Env, e.Root, Env)
}

// CheckOutside returns an *InsideError when the cache directory lies inside
// the tree root (an absolute path), and nil when it does not or the cache
// is off.
func CheckOutside(root string) error {
	if dir := Dir(); dir != "" && within(dir, root) {
		return &InsideError{Dir: dir, Root: root}
	}
	return nil
}
