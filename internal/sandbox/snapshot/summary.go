package snapshot

import "hash"

// Summary describes an archive a persist wrote or a restore read.
type Summary struct {
	// SHA256 (hex) and Size (bytes) of the whole archive.
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	// FileCount is the number of regular-file members.
	FileCount int `json:"file_count"`
	// Files maps each regular file's workspace-relative path to the
	// SHA-256 (hex) of its content.
	Files map[string]string `json:"files"`
	// Fingerprint is the workspace fingerprint (FingerprintVersion), set
	// by a persist.
	Fingerprint string `json:"fingerprint,omitempty"`
}

// countingHash hashes and counts what is written through it.
type countingHash struct {
	h hash.Hash
	n int64
}

func (c *countingHash) Write(b []byte) (int, error) {
	c.n += int64(len(b))
	return c.h.Write(b)
}
