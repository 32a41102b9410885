package redact

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// MinWriteOnlyLen is the shortest write-only value the secret gate looks
// for: shorter values ("1", "true", "admin") would match ordinary files by
// chance and are not remembered.
const MinWriteOnlyLen = 8

// writeOnly remembers, for this process, every write-only value the
// provider was given (value → attribute that carried it).
var writeOnly struct {
	sync.RWMutex
	byValue map[string]string
}

// NoteWriteOnly remembers value as the value of the write-only attribute
// attr (such as "sandbox_file.content_wo"), for the secret gate of
// snapshots and exports. Values shorter than MinWriteOnlyLen are ignored;
// a value with surrounding white space is also remembered trimmed (a
// command that echoes it drops or adds a newline). The first attribute
// seen with a value names it.
func NoteWriteOnly(attr, value string) {
	writeOnly.Lock()
	defer writeOnly.Unlock()
	if writeOnly.byValue == nil {
		writeOnly.byValue = map[string]string{}
	}
	for _, v := range []string{value, strings.TrimSpace(value)} {
		if len(v) < MinWriteOnlyLen {
			continue
		}
		if _, ok := writeOnly.byValue[v]; !ok {
			writeOnly.byValue[v] = attr
		}
	}
}

// WriteOnlyValue is one remembered write-only value.
type WriteOnlyValue struct {
	Attr  string
	Value []byte
}

// WriteOnlyValues returns every remembered value, longest first.
func WriteOnlyValues() []WriteOnlyValue {
	writeOnly.RLock()
	defer writeOnly.RUnlock()
	out := make([]WriteOnlyValue, 0, len(writeOnly.byValue))
	for v, a := range writeOnly.byValue {
		out = append(out, WriteOnlyValue{Attr: a, Value: []byte(v)})
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i].Value) != len(out[j].Value) {
			return len(out[i].Value) > len(out[j].Value)
		}
		return out[i].Attr < out[j].Attr
	})
	return out
}

// WriteOnly replaces every remembered write-only value in s (a name
// read from a sandbox, say: an agent may name a file after a secret it
// read) with REDACTED.
func WriteOnly(s string) string {
	for _, v := range WriteOnlyValues() {
		if strings.Contains(s, string(v.Value)) {
			s = strings.ReplaceAll(s, string(v.Value), "REDACTED")
		}
	}
	return s
}

// SecretFileError is a file that holds the value of a write-only
// attribute: it names the path and the attribute, never the value.
type SecretFileError struct {
	Op   string // "snapshot" or "export"
	Path string
	Attr string
}

func (e *SecretFileError) Error() string {
	fix := "leave the path out (exclude)"
	if e.Op == "export" {
		fix = "leave the file out of paths"
	}
	return fmt.Sprintf("%s refused: %s holds the value of the write-only attribute %s given to this provider; "+
		"%s or set allow_secrets = true", e.Op, e.Path, e.Attr, fix)
}

// SecretScanner is an io.Writer that looks for write-only values in the
// bytes written to it, across write boundaries. Its Write fails with a
// *SecretFileError as soon as one is complete, so a caller that tees a
// file through it stops before the rest is written anywhere.
type SecretScanner struct {
	vals []WriteOnlyValue
	max  int
	tail []byte
	op   string
	path string
}

// NewSecretScanner scans for vals (WriteOnlyValues); nil when vals is
// empty (a nil scanner accepts everything).
func NewSecretScanner(op string, vals []WriteOnlyValue) *SecretScanner {
	if len(vals) == 0 {
		return nil
	}
	s := &SecretScanner{vals: vals, op: op}
	for _, v := range vals {
		s.max = max(s.max, len(v.Value))
	}
	return s
}

// Start begins a new file named path (for the error).
func (s *SecretScanner) Start(path string) {
	if s != nil {
		s.path, s.tail = path, s.tail[:0]
	}
}

// Write scans p following what the current file held so far.
func (s *SecretScanner) Write(p []byte) (int, error) {
	if s == nil {
		return len(p), nil
	}
	s.tail = append(s.tail, p...) // what came before p, then p
	for _, v := range s.vals {
		if bytes.Contains(s.tail, v.Value) {
			return 0, &SecretFileError{Op: s.op, Path: s.path, Attr: v.Attr}
		}
	}
	keep := min(len(s.tail), s.max-1)
	s.tail = append(s.tail[:0], s.tail[len(s.tail)-keep:]...)
	return len(p), nil
}
