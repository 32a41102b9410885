package digestcache

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestLookupTrustsOnlyAnExactOldStat stores one entry and looks it up with
// each field changed: only the exact stat, older than the hash by more than
// Granularity, gives the stored digest back.
func TestLookupTrustsOnlyAnExactOldStat(t *testing.T) {
	t.Setenv(Env, t.TempDir())
	hashed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	old := Stat{Dev: 1, Ino: 2, Size: 3, MtimeNs: hashed.Add(-time.Hour).UnixNano(), CtimeNs: hashed.Add(-time.Hour).UnixNano()}
	same := func(f func(*Stat)) Stat { s := old; f(&s); return s }
	cases := []struct {
		name   string
		stored Stat
		seen   Stat
		hit    bool
	}{
		{"unchanged", old, old, true},
		{"other device", old, same(func(s *Stat) { s.Dev++ }), false},
		{"other inode (swapped)", old, same(func(s *Stat) { s.Ino++ }), false},
		{"other size", old, same(func(s *Stat) { s.Size++ }), false},
		{"other mtime", old, same(func(s *Stat) { s.MtimeNs++ }), false},
		{"mtime set back, ctime moved", old, same(func(s *Stat) { s.CtimeNs = hashed.UnixNano() }), false},
		// Modified in the same second as the hash: the stat may not have
		// moved on a coarse filesystem, so the entry is never trusted.
		{"racily clean mtime", same(func(s *Stat) { s.MtimeNs = hashed.Add(-time.Second).UnixNano() }),
			same(func(s *Stat) { s.MtimeNs = hashed.Add(-time.Second).UnixNano() }), false},
		{"racily clean ctime", same(func(s *Stat) { s.CtimeNs = hashed.Add(-Granularity).UnixNano() }),
			same(func(s *Stat) { s.CtimeNs = hashed.Add(-Granularity).UnixNano() }), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			scope := filepath.Join("/scope", tc.name)
			s := Open(scope)
			s.Store("f", tc.stored, hashed.UnixNano(), "digest")
			if err := s.Save(); err != nil {
				t.Fatal(err)
			}
			got, ok := Open(scope).Lookup("f", tc.seen)
			if ok != tc.hit || (ok && got != "digest") {
				t.Fatalf("Lookup = %q, %v; want hit %v", got, ok, tc.hit)
			}
		})
	}
}

// TestCacheIsOnlyACache: a corrupt or deleted cache file, or the cache
// turned off, gives misses, never an error; Save drops entries not seen.
func TestCacheIsOnlyACache(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(Env, dir)
	st := Stat{Ino: 1, Size: 1}
	s := Open("/tree")
	s.Store("a", st, time.Now().Add(time.Hour).UnixNano(), "A")
	s.Store("b", st, time.Now().Add(time.Hour).UnixNano(), "B")
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	s = Open("/tree")
	if v, ok := s.Lookup("a", st); !ok || v != "A" {
		t.Fatalf("Lookup(a) = %q, %v", v, ok)
	}
	if err := s.Save(); err != nil { // b was not seen: dropped
		t.Fatal(err)
	}
	if _, ok := Open("/tree").Lookup("b", st); ok {
		t.Fatal("an entry not seen by the last walk survived Save")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("cache files = %v, want one", files)
	}
	if err := os.WriteFile(files[0], []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := Open("/tree").Lookup("a", st); ok {
		t.Fatal("a corrupt cache file gave a hit")
	}
	t.Setenv(Env, "off")
	if s := Open("/tree"); s != nil {
		t.Fatal("Open with the cache off returned a set")
	}
	var off *Set
	off.Store("a", st, 0, "A")
	if _, ok := off.Lookup("a", st); ok || off.Save() != nil {
		t.Fatal("a nil set cached something")
	}
}

// TestCacheInsideItsTreeIsNotUsed: a cache directory inside the tree it
// would cache (or equal to it) is not used for that tree, so nothing is
// written into a source or a workspace copy; other trees still use it.
func TestCacheInsideItsTreeIsNotUsed(t *testing.T) {
	tree := t.TempDir()
	for _, dir := range []string{tree, filepath.Join(tree, ".cache"), filepath.Join(tree, "a", "b")} {
		t.Setenv(Env, dir)
		if s := Open(tree); s != nil {
			t.Errorf("Open(%s) with the cache at %s returned a set", tree, dir)
		}
		if s := Open(filepath.Join(tree, "a")); dir == filepath.Join(tree, "a", "b") && s != nil {
			t.Errorf("Open(%s/a) with the cache at %s returned a set", tree, dir)
		}
		if s := Open(tree + "-sibling"); s == nil {
			t.Errorf("Open of a sibling tree with the cache at %s returned nil", dir)
		}
		if s := Open("workspace-file:" + filepath.Join(tree, "f")); s == nil {
			t.Errorf("Open of a file scope with the cache at %s returned nil", dir)
		}
	}
	// A relative cache directory is taken from the working directory.
	t.Chdir(tree)
	t.Setenv(Env, "rel")
	if s := Open(tree); s != nil {
		t.Error("a relative cache directory inside the tree was used")
	}
}
