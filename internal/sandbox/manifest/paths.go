package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// entryKind classifies the registered entry types.
type entryKind int

const (
	kindPlain entryKind = iota // file, local_file
	kindDir                    // dir, local_dir, git_repo
	kindMount                  // every *_mount type
)

// entryTypeKinds is the Python SDK's core entry type registry (design/sdk-model.md §2.1).
var entryTypeKinds = map[string]entryKind{
	"file":             kindPlain,
	"local_file":       kindPlain,
	"dir":              kindDir,
	"local_dir":        kindDir,
	"git_repo":         kindDir,
	"s3_mount":         kindMount,
	"gcs_mount":        kindMount,
	"r2_mount":         kindMount,
	"azure_blob_mount": kindMount,
	"box_mount":        kindMount,
	"s3_files_mount":   kindMount,
}

// RegisteredEntryTypes returns the entry type tags the engine knows, sorted:
// the Python SDK's core registry (design/sdk-model.md §2.1), "azure_blob_mount" ... "s3_mount".
func RegisteredEntryTypes() []string {
	out := make([]string, 0, len(entryTypeKinds))
	for t := range entryTypeKinds {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// IsMountEntryType reports whether t is a registered mount entry type; mounts
// default to ephemeral (design/sdk-model.md §2.1).
func IsMountEntryType(t string) bool {
	k, ok := entryTypeKinds[t]
	return ok && k == kindMount
}

// IsDirectoryEntryType reports whether t is directory-like (dir, local_dir,
// git_repo and every mount): such entries default to is_dir true and always
// carry the directory permission flag (design/sdk-model.md §2.1).
func IsDirectoryEntryType(t string) bool {
	k, ok := entryTypeKinds[t]
	return ok && k != kindPlain
}

// DefaultEntryPermissions returns DefaultPermissions with Directory forced to
// true when entryType is directory-like (IsDirectoryEntryType), as the Python SDK
// does after constructing Dir, LocalDir, GitRepo and mount entries
// (design/sdk-model.md §2.1).
func DefaultEntryPermissions(entryType string) posix.Permissions {
	p := posix.DefaultPermissions()
	p.Directory = IsDirectoryEntryType(entryType)
	return p
}

// KeyedEntry is an entry under its key exactly as written in the manifest
// (a workspace-relative path that has not been validated yet).
type KeyedEntry struct {
	Key   string
	Entry *Entry
}

// Entries is an ordered mapping of keys to entries: a manifest's "entries"
// or a Dir's "children", in their JSON order.
type Entries []KeyedEntry

// EntryPath is an entry with its workspace-relative path.
type EntryPath struct {
	Path  string
	Entry *Entry
}

// DecodeEntries reads the "entries" of a JSON manifest object,
// keeping the order of keys as written (a repeated key keeps its first
// position and its last value, like Python's json module). A missing or
// null "entries" gives an empty list. Every entry is fully validated as in
// Parse. Errors use the Python SDK's messages (design/sdk-model.md §2.1, §2.3): the
// TypeErrors "Artifact mapping must be a mapping, got <type>" and
// "Artifact entry must be a BaseEntry or mapping, got <type>" as plain
// errors; the validation errors "Value error, Artifact entry mapping must
// include a string `type` field", "Value error, Unknown artifact type `<t>`.
// Registered types: <sorted list>", "Field required", "Input should be a
// valid boolean", ... as *Error with pydantic's location. Keys are
// not validated here; see IterEntries.
func DecodeEntries(data []byte) (Entries, error) {
	v, err := decodeOrderedJSON(data)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(*orderedObject)
	if !ok {
		return nil, fmt.Errorf("manifest must be a JSON object, got %s", pyTypeName(v))
	}
	return parseEntryMapping(obj.get("entries"), []string{"entries"})
}

// seedError returns a plain error carrying a Python SDK message verbatim (some
// begin with a capital letter, as the Python SDK writes them).
func seedError(msg string) error { return errors.New(msg) }

// IterEntries walks the tree as the Python SDK's Manifest.iter_entries does
// (design/sdk-model.md §3.2): depth-first in insertion order, a child's path being its
// parent's path joined with its key (posix.JoinEntryPath). Every key is checked
// with the entry path rules at the point the Python SDK checks it: a
// Windows-absolute key fails as soon as its siblings are queued (top-level
// keys before anything is yielded), and every path is validated just before
// it is yielded, so "safe" with child "../x" fails as "safe/../x" and an
// absolute child is reported with its own text. The first error (a *sandbox.Error
// from sandbox.NewInvalidManifestPathError) or the first error returned by yield
// stops the walk and is returned.
func (es Entries) IterEntries(yield func(rel string, e *Entry) error) error {
	type item struct {
		rel   string
		entry *Entry
	}
	push := func(stack []item, parent string, children Entries) ([]item, error) {
		for i := len(children) - 1; i >= 0; i-- {
			key := children[i].Key
			if posix, ok := posix.WindowsAbsoluteAsPosix(key); ok {
				return nil, sandbox.NewInvalidManifestPathError(posix, sandbox.ReasonAbsolute)
			}
			rel := posix.CoercePosix(key)
			if parent != "" {
				rel = posix.JoinPosix(parent, rel)
			}
			stack = append(stack, item{rel: rel, entry: children[i].Entry})
		}
		return stack, nil
	}
	stack, err := push(nil, "", es)
	if err != nil {
		return err
	}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if _, err := posix.ValidateEntryPath(it.rel); err != nil {
			return err
		}
		if err := yield(it.rel, it.entry); err != nil {
			return err
		}
		if it.entry.Type != "dir" {
			continue
		}
		if stack, err = push(stack, it.rel, it.entry.Children); err != nil {
			return err
		}
	}
	return nil
}

// ValidatedEntries applies the entry path rules (design/sdk-model.md §3.2) to every key,
// top-level and nested, and returns every entry with its path in walk
// order, or the first error (see IterEntries), as the Python SDK's
// validated_entries does before a manifest is applied or described.
func (es Entries) ValidatedEntries() ([]EntryPath, error) {
	var out []EntryPath
	err := es.IterEntries(func(rel string, e *Entry) error {
		out = append(out, EntryPath{Path: rel, Entry: e})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// CheckedEntries is ValidatedEntries plus the filesystem's limits on every
// path (posix.CheckEntryPlace: NUL bytes, names over 255 bytes, a file
// at the root), which the Python SDK meets only when it writes: what this
// provider applies or renders is refused at plan time instead.
func (es Entries) CheckedEntries() ([]EntryPath, error) {
	list, err := es.ValidatedEntries()
	if err != nil {
		return nil, err
	}
	for _, ep := range list {
		if err := posix.CheckEntryPlace(ep.Path, IsDirectoryEntryType(ep.Entry.Type)); err != nil {
			return nil, err
		}
	}
	return list, nil
}

// EphemeralEntryPaths follows the Python SDK's ephemeral_entry_paths: the paths of
// every entry, at any depth, whose Ephemeral flag is set, sorted (the Python SDK
// returns a set). Errors as IterEntries.
func (es Entries) EphemeralEntryPaths() ([]string, error) {
	var out []string
	err := es.IterEntries(func(rel string, e *Entry) error {
		if e.Ephemeral {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}

// orderedObject is a JSON object that remembers its key order.
type orderedObject struct {
	keys []string
	vals map[string]any
}

func (o *orderedObject) get(k string) any { return o.vals[k] }

// str, flag and num are get for fields the schema has already checked to be
// a string, a bool or an integer; another type gives the zero value.
func (o *orderedObject) str(k string) string {
	s, _ := o.vals[k].(string)
	return s
}

func (o *orderedObject) flag(k string) bool {
	b, _ := o.vals[k].(bool)
	return b
}

func (o *orderedObject) num(k string) int64 {
	n, _ := o.vals[k].(int64)
	return n
}

// decodeOrderedJSON decodes one JSON value; objects become *orderedObject,
// numbers json.Number.
func decodeOrderedJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeOrderedValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("invalid JSON: trailing data after the value")
	}
	return v, nil
}

func decodeOrderedValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := &orderedObject{vals: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf("invalid JSON: %w", err)
				}
				k, _ := kt.(string)
				v, err := decodeOrderedValue(dec)
				if err != nil {
					return nil, err
				}
				if _, seen := obj.vals[k]; !seen {
					obj.keys = append(obj.keys, k)
				}
				obj.vals[k] = v
			}
			_, err := dec.Token()
			return obj, err
		case '[':
			var arr []any
			for dec.More() {
				v, err := decodeOrderedValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token()
			return arr, err
		}
		return nil, fmt.Errorf("invalid JSON: unexpected %v", t)
	default:
		return t, nil
	}
}

// pyTypeName is the Python type name of a decoded JSON value.
func pyTypeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case string:
		return "str"
	case []any:
		return "list"
	case *orderedObject:
		return "dict"
	case json.Number:
		if strings.ContainsAny(x.String(), ".eE") {
			return "float"
		}
		return "int"
	}
	return fmt.Sprintf("%T", v)
}
