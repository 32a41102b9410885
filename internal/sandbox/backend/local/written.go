package local

import "sync"

// writtenFile is what one write of this backend left at a path: the
// content's SHA-256 and the stat fields any later change to the content
// must alter, taken from the written file on a filesystem with fine-grained
// change times (digestcache.FineTimes).
type writtenFile struct {
	dev, ino    uint64
	size, mtime int64
	sum         string
}

// writtenFiles are the writes not yet recorded, by workspace-relative
// path. A batch records the few it keeps; the map is dropped when it grows
// past maxWritten, which only costs a hash on the next plan.
type writtenFiles struct {
	mu sync.Mutex
	m  map[string]writtenFile
}

const maxWritten = 200_000
