package digestcache

// StoreWritten records value as the digest of name, whose content the
// caller wrote itself and whose stat st was taken after its last change to
// the file, on a filesystem for which FineTimes holds. Such an entry is
// trusted without the racy check: taking st made the kernel give any later
// change a new change time, however soon it comes.
func (s *Set) StoreWritten(name string, st Stat, value string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen[name] = s.sealed(name, entry{Stat: st, HashedAt: s.now().UnixNano(), Value: value, Written: true})
	s.changed = true
}

// Keep marks every entry loaded by Open as seen, so that Save keeps the
// entries of files that were neither looked up nor stored (a copy that
// rewrote only some files of a tree).
func (s *Set) Keep() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, e := range s.old {
		if _, ok := s.seen[name]; !ok {
			s.seen[name] = e
		}
	}
}
