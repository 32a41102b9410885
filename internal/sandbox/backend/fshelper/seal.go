package fshelper

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/digestcache"
)

// The digest cache in a container (DigestDir) is within the reach of the
// container's root, so it is sealed (package digestcache): the provider
// opens the stdin of every operation that uses it (Sealed) with one line
// holding its seal key in hex, or only dashes when it has none, and the
// helper then keeps no cache at all. The helper makes itself undumpable
// before it reads the line, so that another process of the same user can
// neither attach to it nor open its stdin afterwards.

// sealLineLen is the length of the seal line, newline included.
const sealLineLen = 2*digestcache.KeySize + 1

// Sealed reports whether op (with arg) uses the digest cache and so reads
// a seal line first.
func Sealed(op, arg string) bool {
	return op == OpHash || op == OpWalk || op == OpWrite || op == OpBatch || (op == OpStat && arg == StatHash)
}

// SealLine is the seal line for key (nil: no key).
func SealLine(key []byte) []byte {
	if len(key) != digestcache.KeySize {
		return append(bytes.Repeat([]byte("-"), sealLineLen-1), '\n')
	}
	return []byte(hex.EncodeToString(key) + "\n")
}

// readSealLine reads the seal line from r: the key, or nil for a line of
// dashes.
func readSealLine(r io.Reader) ([]byte, error) {
	if r == nil {
		return nil, fmt.Errorf("%w: no seal line on stdin", errUsage)
	}
	var line [sealLineLen]byte
	if _, err := io.ReadFull(r, line[:]); err != nil {
		return nil, fmt.Errorf("%w: reading the seal line: %w", errUsage, err)
	}
	if line[sealLineLen-1] != '\n' {
		return nil, fmt.Errorf("%w: malformed seal line", errUsage)
	}
	body := line[:sealLineLen-1]
	if bytes.Equal(body, bytes.Repeat([]byte("-"), len(body))) {
		return nil, nil
	}
	key, err := hex.DecodeString(string(body))
	if err != nil {
		return nil, fmt.Errorf("%w: malformed seal line", errUsage)
	}
	return key, nil
}
