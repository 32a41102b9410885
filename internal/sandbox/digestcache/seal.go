package digestcache

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// A cache that lies within reach of someone who must not choose its
// digests (a container's root, who may be an agent gaming its grader) is
// sealed: every entry carries an HMAC-SHA256 of its name and fields under
// a key that stays with the provider, and an entry whose seal does not
// match is ignored, so a forged entry costs a hash, never a wrong digest.
// The provider passes the key to its file helper for each operation that
// uses the cache (see package fshelper); caches the provider keeps on its
// own machine are not sealed.

// KeySize is the length of a seal key in bytes.
const KeySize = 32

var (
	sealMu  sync.Mutex
	sealKey []byte
)

// SetKey makes every Set opened afterwards sealed under key (nil: not
// sealed). It is process-wide: the file helper calls it once, before any
// Open.
func SetKey(key []byte) {
	sealMu.Lock()
	defer sealMu.Unlock()
	sealKey = append([]byte(nil), key...)
	if key == nil {
		sealKey = nil
	}
}

func currentKey() []byte {
	sealMu.Lock()
	defer sealMu.Unlock()
	return sealKey
}

// seal is the HMAC of an entry of name under key, in hex.
func seal(key []byte, name string, e entry) string {
	m := hmac.New(sha256.New, key)
	var b [8]byte
	put := func(v uint64) {
		binary.BigEndian.PutUint64(b[:], v)
		m.Write(b[:])
	}
	put(uint64(len(name)))
	m.Write([]byte(name))
	put(e.Dev)
	put(e.Ino)
	put(uint64(e.Size))    //nolint:gosec // bits, not a quantity
	put(uint64(e.MtimeNs)) //nolint:gosec // bits, not a quantity
	put(uint64(e.CtimeNs)) //nolint:gosec // bits, not a quantity
	put(uint64(e.HashedAt))
	written := uint64(0)
	if e.Written {
		written = 1
	}
	put(written)
	put(uint64(len(e.Value)))
	m.Write([]byte(e.Value))
	return hex.EncodeToString(m.Sum(nil))
}

// sealed reports whether e carries the seal of name under key.
func sealed(key []byte, name string, e entry) bool {
	want := seal(key, name, e)
	return hmac.Equal([]byte(want), []byte(e.Seal))
}

// Reseal rewrites the seals of every entry of the cache files in dir under
// key, after a test changed an entry on purpose (a forged entry stays
// unsealed unless it is resealed with the provider's key).
func Reseal(dir string, key []byte) error {
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, p := range files {
		entries := load(p)
		for name, e := range entries {
			e.Seal = seal(key, name, e)
			entries[name] = e
		}
		s := &Set{path: p, seen: entries, changed: true}
		if err := s.Save(); err != nil {
			return err
		}
	}
	return nil
}

var hostKey struct {
	once sync.Once
	key  []byte
}

// HostKey returns the provider's seal key, kept in the file "seal.key"
// (mode 0600) of the cache directory and created there on first use; nil
// when the cache is off or the key can be neither read nor made, and then
// sealed caches are not used at all. A machine with another key (a fresh
// CI runner) finds the entries of a container unsealed and hashes again.
func HostKey() []byte {
	hostKey.once.Do(func() { hostKey.key = loadHostKey(Dir()) })
	return hostKey.key
}

func loadHostKey(dir string) []byte {
	if dir == "" {
		return nil
	}
	p := filepath.Join(dir, "seal.key")
	if k := readKey(p); k != nil {
		return k
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil
	}
	k := make([]byte, KeySize)
	if _, err := rand.Read(k); err != nil {
		return nil
	}
	tmp, err := os.CreateTemp(dir, ".key-*")
	if err != nil {
		return nil
	}
	defer os.Remove(tmp.Name()) //nolint:errcheck // gone once linked
	_, werr := tmp.WriteString(hex.EncodeToString(k) + "\n")
	if errors.Join(werr, tmp.Close()) != nil {
		return nil
	}
	// A link never replaces: two providers starting at once agree on the
	// first key written.
	if err := os.Link(tmp.Name(), p); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil
	}
	return readKey(p)
}

func readKey(p string) []byte {
	b, err := os.ReadFile(p) //nolint:gosec // the cache's own key
	if err != nil {
		return nil
	}
	k, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(k) != KeySize {
		return nil
	}
	return k
}
