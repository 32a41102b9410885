package mount

import (
	"errors"
	"slices"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// Acknowledgements are the trusted, runtime-only exposure acknowledgements
// of the Python SDK's Manifest.with_in_container_mount_credential_exposure_acknowledged
// (MountScoped) and
// Manifest.with_in_container_mount_broad_credential_exposure_acknowledged
// (Broad). Each path is root-relative or absolute (see
// ValidateAcknowledgementPath) and covers exactly the mount whose target it
// names, not its children; "data" and "/workspace/data" are the same path.
type Acknowledgements struct {
	// MountScoped acknowledges inline keys and tokens.
	MountScoped []string
	// Broad acknowledges identity ids, credential files and helpers that
	// discover ambient credentials (blobfuse, S3 Files).
	Broad []string
}

// ackSet validates acknowledgement paths and returns their canonical keys.
func ackSet(root string, paths []string) (map[string]bool, error) {
	out := make(map[string]bool, len(paths))
	for _, p := range paths {
		key, err := ackKey(root, p, true)
		if err != nil {
			return nil, err
		}
		out[key] = true
	}
	return out, nil
}

// ValidateAcknowledgementPath checks one path given to an exposure
// acknowledgement of a manifest whose root is root ("" means "/workspace"),
// following the Python SDK's Manifest acknowledgement rules (design/sdk-model.md §5.8). In this
// order, as plain errors carrying the Python SDK's ValueError messages: an empty
// path → "Mount credential exposure path must identify a non-root path.";
// a backslash → "Mount credential exposure paths must use '/' separators.";
// any of "*?[]" → "Mount credential exposure paths must not contain
// wildcard syntax."; a ".." segment → "Mount credential exposure paths
// must not contain parent segments."; then a relative Windows-absolute
// path ("C:/x") → *sandbox.Error from sandbox.NewInvalidManifestPathError
// (reason "absolute"); last a path naming the root (".", "/", the root
// itself) → the non-root message again.
func ValidateAcknowledgementPath(root, p string) error {
	if root == "" {
		root = manifest.DefaultRoot
	}
	_, err := ackKey(root, p, true)
	return err
}

const (
	msgAckNonRoot   = "Mount credential exposure path must identify a non-root path."
	msgAckSeparator = "Mount credential exposure paths must use '/' separators."
	msgAckWildcard  = "Mount credential exposure paths must not contain wildcard syntax."
	msgAckParent    = "Mount credential exposure paths must not contain parent segments."
)

// ackKey returns the canonical absolute form of an acknowledgement path
// (declare) or of a mount target (lookup); "" when the path names the root.
// Root-relative and absolute spellings of one path give the same key.
func ackKey(root, p string, declare bool) (string, error) {
	fail := func(msg string) (string, error) { return "", errors.New(msg) }
	if p == "" {
		if declare {
			return fail(msgAckNonRoot)
		}
		return "", nil
	}
	if strings.Contains(p, `\`) {
		return fail(msgAckSeparator)
	}
	if declare && strings.ContainsAny(p, "*?[]") {
		return fail(msgAckWildcard)
	}
	segs := splitPosixParts(p)
	if declare && slices.Contains(segs, "..") {
		return fail(msgAckParent)
	}
	rootSegs := splitPosixParts(root)
	var key []string
	if strings.HasPrefix(p, "/") {
		key = resolveDotDot(segs)
	} else {
		if posix.IsWindowsAbsolute(p) {
			return "", sandbox.NewInvalidManifestPathError(strings.Join(segs, "/"), sandbox.ReasonAbsolute)
		}
		rel := make([]string, 0, len(segs))
		for _, s := range segs {
			if s != ".." {
				rel = append(rel, s)
			} else if len(rel) == 0 {
				return "", sandbox.NewInvalidManifestPathError(strings.Join(segs, "/"), sandbox.ReasonEscapeRoot)
			} else {
				rel = rel[:len(rel)-1]
			}
		}
		if len(rel) > 0 {
			key = append(append([]string(nil), rootSegs...), rel...)
		}
	}
	if len(key) == 0 || strings.Join(key, "/") == strings.Join(rootSegs, "/") {
		if declare {
			return fail(msgAckNonRoot)
		}
		return "", nil
	}
	return "/" + strings.Join(key, "/"), nil
}

// splitPosixParts splits a POSIX path into its parts, dropping empty and "."
// segments (the root is not a segment).
func splitPosixParts(p string) []string {
	var out []string
	for _, s := range strings.Split(p, "/") {
		if s != "" && s != "." {
			out = append(out, s)
		}
	}
	return out
}

// resolveDotDot resolves ".." segments lexically, never above the top.
func resolveDotDot(segs []string) []string {
	out := make([]string, 0, len(segs))
	for _, s := range segs {
		if s != ".." {
			out = append(out, s)
		} else if len(out) > 0 {
			out = out[:len(out)-1]
		}
	}
	return out
}

// absManifestPath is the Python SDK's _absolute_manifest_path: v under root when
// relative, then normalised lexically ("." and empty segments dropped, ".."
// popping, never above "/").
func absManifestPath(root, v string) string {
	segs := splitPosixParts(v)
	if !strings.HasPrefix(v, "/") {
		segs = append(splitPosixParts(root), segs...)
	}
	return "/" + strings.Join(resolveDotDot(segs), "/")
}
