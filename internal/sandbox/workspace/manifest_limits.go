package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
)

// Bounds on a manifest applied by sandbox_manifest. Every entry becomes
// part of the resource's state (entries, files), which Terraform and the
// plugin framework copy and walk several times per plan and apply; past a
// few thousand entries that costs minutes, so larger manifests are refused
// at plan time rather than left to stall. Split a larger tree into several
// manifests, or copy it with sandbox_local_dir (one state entry per file).
const (
	// MaxManifestBytes is the largest manifest_json accepted (4 MiB).
	MaxManifestBytes = 4 << 20
	// MaxManifestEntries is the most entries, nested dir children
	// included, a manifest may hold.
	MaxManifestEntries = 5000
	// MaxManifestDepth is the deepest nesting of JSON objects and arrays
	// accepted; a dir child adds two levels (the children map and the
	// entry), so it allows about 60 levels of nested dirs.
	MaxManifestDepth = 128
)

// CheckManifestSize refuses, before it is parsed, a manifest larger than
// MaxManifestBytes or nested deeper than MaxManifestDepth. It reads the
// JSON as a token stream, so a deep document costs no recursion.
func CheckManifestSize(raw []byte) error {
	if len(raw) > MaxManifestBytes {
		return fmt.Errorf("the manifest is %d bytes; manifests are limited to %d bytes (4 MiB): split it into several "+
			"sandbox_manifest resources, or copy large trees with sandbox_local_dir", len(raw), MaxManifestBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	depth := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return nil //nolint:nilerr // not JSON: the parser reports it with its own message
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				if depth++; depth > MaxManifestDepth {
					return fmt.Errorf("the manifest is nested more than %d levels deep (about %d levels of nested dir "+
						"children); flatten it: a dir entry's path may hold several segments, such as \"a/b/c\"",
						MaxManifestDepth, (MaxManifestDepth-4)/2)
				}
			case '}', ']':
				depth--
			}
		}
	}
}

// checkFileKeys refuses a file or local_file whose key, at any depth, ends
// with a separator ("x/", "x\\", "x/."): the key reads as a directory, yet
// the Python SDK would drop the separator and write a file.
func checkFileKeys(es manifest.Entries) error {
	for _, ke := range es {
		if ke.Entry == nil {
			continue
		}
		k := strings.TrimSuffix(ke.Key, ".")
		if t := ke.Entry.Type; (t == "file" || t == "local_file") && (strings.HasSuffix(k, "/") || strings.HasSuffix(k, "\\")) {
			return fmt.Errorf("entry key %s is a %s, but ends with a separator, so it names a directory; a file's key "+
				"ends with the file's name", sandbox.QuoteText(ke.Key), t)
		}
		if err := checkFileKeys(ke.Entry.Children); err != nil {
			return err
		}
	}
	return nil
}

// checkPlannedEntries refuses what applying the entries could never do:
// more than MaxManifestEntries entries and an entry below a path that
// another entry makes a file (names the filesystem refuses are
// manifest.Entries.CheckedEntries's).
func checkPlannedEntries(entries []PlannedEntry) error {
	if len(entries) > MaxManifestEntries {
		return fmt.Errorf("the manifest has %d entries (nested dir children included); manifests are limited to %d "+
			"entries: split it into several sandbox_manifest resources, or copy large trees with sandbox_local_dir",
			len(entries), MaxManifestEntries)
	}
	files := map[string]bool{}
	for _, pe := range entries {
		if t := pe.Entry.Type; t == "file" || t == "local_file" {
			files[pe.Path] = true
		}
	}
	for _, pe := range entries {
		for p := pe.Path; ; {
			i := strings.LastIndexByte(p, '/')
			if i < 0 {
				break
			}
			if p = p[:i]; files[p] {
				return fmt.Errorf("entry %s lies below %s, which another entry of the manifest makes a file; a file "+
					"cannot hold entries", sandbox.QuoteText(pe.Path), sandbox.QuoteText(p))
			}
		}
	}
	return nil
}
