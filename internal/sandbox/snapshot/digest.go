package snapshot

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"sort"
	"strings"
	"unicode/utf16"
)

// ManifestDigest is the Python SDK's resume manifest digest: the SHA-256
// (hex) of the manifest JSON dumped with json.dumps(sort_keys=True,
// separators=(",", ":")) (keys sorted, no spaces, non-ASCII escaped).
func ManifestDigest(manifestJSON []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(manifestJSON))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("manifest JSON: %w", err)
	}
	var buf bytes.Buffer
	if err := writeSorted(&buf, v); err != nil {
		return "", err
	}
	sum := sha256.Sum256(buf.Bytes())
	return hex.EncodeToString(sum[:]), nil
}

func writeSorted(buf *bytes.Buffer, v any) error {
	switch t := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		if t {
			buf.WriteString("true")
		} else {
			buf.WriteString("false")
		}
	case json.Number:
		buf.WriteString(t.String())
	case string:
		writeASCIIString(buf, t)
	case []any:
		buf.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeSorted(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys) // code point order, as Python sorts str keys
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeASCIIString(buf, k)
			buf.WriteByte(':')
			if err := writeSorted(buf, t[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	default:
		return fmt.Errorf("manifest JSON: unexpected value %T", v)
	}
	return nil
}

// writeASCIIString writes s as Python's json.dumps does with
// ensure_ascii=True: Go's escapes for quotes, backslashes and control
// characters, then every non-ASCII code point as \uXXXX (surrogate pairs
// above the BMP).
func writeASCIIString(buf *bytes.Buffer, s string) {
	var enc bytes.Buffer
	e := json.NewEncoder(&enc)
	e.SetEscapeHTML(false)
	_ = e.Encode(s) // a string always encodes
	for _, r := range strings.TrimSuffix(enc.String(), "\n") {
		switch {
		case r < 0x80:
			buf.WriteRune(r)
		case r < 0x10000:
			fmt.Fprintf(buf, `\u%04x`, r)
		default:
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(buf, `\u%04x\u%04x`, hi, lo)
		}
	}
}

// Fingerprint is the workspace fingerprint (FingerprintVersion): the
// SHA-256 (hex) of the archive's bytes followed by the manifest digest
// (hex). archive is a SHA-256 that has consumed the archive; it is left
// as it was.
func Fingerprint(archive hash.Hash, manifestDigest string) (string, error) {
	m, ok := archive.(encoding.BinaryMarshaler)
	if !ok {
		return "", fmt.Errorf("fingerprint: the hash cannot be cloned")
	}
	state, err := m.MarshalBinary()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	u, ok := h.(encoding.BinaryUnmarshaler)
	if !ok {
		return "", fmt.Errorf("fingerprint: the hash cannot be restored")
	}
	if err := u.UnmarshalBinary(state); err != nil {
		return "", err
	}
	h.Write([]byte(manifestDigest))
	return hex.EncodeToString(h.Sum(nil)), nil
}
