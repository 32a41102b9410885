package mount

import (
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
)

// Errors of raw manifest sanitization, the Python SDK's messages.
const (
	msgRawEntries         = "sandbox manifest entries have an invalid shape"
	msgRawUnknownMount    = "sandbox manifest contains an unknown mount-like entry"
	msgRawFilePathShape   = "sandbox manifest credential-file path has an invalid shape"
	msgRawStrategyShape   = "sandbox manifest mount strategy has an invalid shape"
	msgRawS3fsDelimiter   = "sandbox manifest cloud mount configuration contains an s3fs option delimiter"
	msgRawUnknownStrategy = "sandbox manifest mount strategy has an unknown type"
	msgRawPatternShape    = "sandbox manifest mount pattern has an invalid shape"
	msgRawUnknownPattern  = "sandbox manifest mount pattern has an unknown type"
	msgRawConfigPathShape = "sandbox manifest rclone config-file path has an invalid shape"
	msgRawConfigArgShape  = "sandbox manifest rclone config argument has an invalid shape"
	msgRawCredentialFile  = "sandbox manifest credential-file source cannot be restored safely"
)

// SanitizeRawManifestMountAuthority removes mount authority from a decoded
// JSON manifest (map[string]any, []any, strings, numbers, bools, nil) before
// it is stored durably, following the Python SDK's
// sanitize_raw_manifest_mount_authority (design/sdk-model.md §5.7). It returns a sanitized
// deep copy and whether anything was removed (the Python SDK's flag that the
// mounts must be re-bound from a trusted manifest before resume). A payload
// that is not an object is returned as is, unchanged. In every mount entry
// (Dir children included): authority fields (design/sdk-model.md §5.8) are set to null;
// endpoint URLs with inline authority are nulled; multi-line rclone values
// are blanked; S3 Files extra_options and pattern options.extra_options are
// emptied; docker driver_options become {}; an unsafe remote_name and any
// config_file_path become null; unsafe extra_args become []; unknown
// fields of the mount, strategy, pattern and options are stripped. A file
// entry at a credential file path has its content emptied. Errors are plain
// errors with the Python SDK's messages: malformed entries ("sandbox manifest
// entries have an invalid shape", which also empties the caller's
// payload), unknown mount-like entries, strategy or pattern types,
// malformed strategy, pattern, credential-file path or "--config"
// argument, and credential files that another entry materialises.
// Entries are visited in key order.
func SanitizeRawManifestMountAuthority(payload any) (any, bool, error) {
	in, ok := payload.(map[string]any)
	if !ok {
		return payload, false, nil
	}
	doc := deepCopyJSON(in).(map[string]any) //nolint:forcetypeassert // a copy of a map is a map
	if entries, present := doc["entries"]; present && !rawEntryTreeValid(entries) {
		clear(in)
		return nil, false, errors.New(msgRawEntries)
	}
	root := manifest.DefaultRoot
	if r, ok := doc["root"].(string); ok {
		root = r
	}
	entries := rawEntries(doc["entries"], "")
	redacted := false
	filePaths := map[string]bool{}
	for _, e := range entries {
		t, isString := e.entry["type"].(string)
		switch {
		case isString && rawExtensionMountFields[t] != nil:
		case !isString || !registeredEntryType(t):
			if _, mountLike := e.entry["mount_strategy"]; mountLike {
				return nil, false, errors.New(msgRawUnknownMount)
			}
			continue
		case !manifest.IsMountEntryType(t):
			continue
		}
		r, paths, err := sanitizeRawMount(e.entry, t)
		if err != nil {
			return nil, false, err
		}
		redacted = redacted || r
		for _, p := range paths {
			filePaths[absManifestPath(root, p)] = true
		}
	}
	for _, target := range slices.Sorted(maps.Keys(filePaths)) {
		for _, e := range entries {
			ep := absManifestPath(root, e.path)
			t, _ := e.entry["type"].(string)
			if ep == target && t == "file" {
				e.entry["content"] = ""
				redacted = true
				continue
			}
			if ep != target && ep != "/" && !strings.HasPrefix(target, ep+"/") {
				continue
			}
			if t == "dir" || (t == "local_dir" && e.entry["src"] == nil) {
				continue
			}
			return nil, false, errors.New(msgRawCredentialFile)
		}
	}
	return doc, redacted, nil
}

// rawEntry is one entry object of a raw manifest with its path.
type rawEntry struct {
	path  string
	entry map[string]any
}

// rawEntries lists the entry objects of a raw entry mapping, depth first,
// descending into the children of dir entries and of unknown types.
func rawEntries(entries any, parent string) []rawEntry {
	m, ok := entries.(map[string]any)
	if !ok {
		return nil
	}
	var out []rawEntry
	for _, name := range slices.Sorted(maps.Keys(m)) {
		e, ok := m[name].(map[string]any)
		if !ok {
			continue
		}
		p := name
		if parent != "" && !strings.HasPrefix(name, "/") {
			p = parent + "/" + name
		}
		out = append(out, rawEntry{p, e})
		if rawHasChildren(e) {
			out = append(out, rawEntries(e["children"], p)...)
		}
	}
	return out
}

// rawHasChildren reports whether an entry's "children" belong to the entry
// tree: those of a dir or of an unregistered type.
func rawHasChildren(e map[string]any) bool {
	t, ok := e["type"].(string)
	if ok && rawExtensionMountFields[t] != nil {
		return false
	}
	return !ok || !registeredEntryType(t) || t == "dir"
}

func rawEntryTreeValid(entries any) bool {
	m, ok := entries.(map[string]any)
	if !ok {
		return false
	}
	for _, v := range m {
		e, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if _, ok := e["type"].(string); !ok {
			return false
		}
		if children, has := e["children"]; has && rawHasChildren(e) && !rawEntryTreeValid(children) {
			return false
		}
	}
	return true
}

func registeredEntryType(t string) bool {
	for _, r := range manifest.RegisteredEntryTypes() {
		if r == t {
			return true
		}
	}
	return false
}

func deepCopyJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopyJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopyJSON(e)
		}
		return out
	}
	return v
}
