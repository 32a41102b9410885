package posix

import (
	"errors"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// Path conventions (design/sdk-model.md, "Conventions"): sandbox paths are POSIX paths.
// Three normal forms appear in the Python SDK and are reproduced here:
//   - NormPosix is posixpath.normpath: lexical, collapses "x/.." pairs;
//   - pathlibPosix is the text of PurePosixPath(s): drops empty and "."
//     segments and a trailing slash but keeps "..";
//   - coercePosix replaces every backslash with "/" first.
// Both keep a leading "//" (exactly two slashes) as its own root.

// IsWindowsAbsolute reports whether s is "Windows-absolute" in the Python SDK's
// sense (design/sdk-model.md conventions): absolute under Windows rules but not under
// POSIX rules, detected on the raw text. That is a drive followed by a root,
// like `C:\x` or `C:/x`. UNC paths (`\\server\share`, `//server/share`) are
// absolute under POSIX rules once their separators are read as "/", so they
// are not Windows-absolute; neither is `\x` (a root without a drive).
func IsWindowsAbsolute(s string) bool {
	var r [3]rune
	i := 0
	for _, c := range s {
		r[i] = c
		if i++; i == 3 {
			break
		}
	}
	if i < 3 {
		return false
	}
	return r[0] != '/' && r[0] != '\\' && r[1] == ':' && (r[2] == '/' || r[2] == '\\')
}

// windowsAsPosix returns PureWindowsPath(s).as_posix() for a
// Windows-absolute s: the drive, "/", then the non-empty, non-"." segments
// joined by "/".
func windowsAsPosix(s string) string {
	drive, rest := splitWindowsDrive(s)
	return drive + "/" + strings.Join(windowsSegments(rest), "/")
}

// splitWindowsDrive splits a Windows-absolute s into its two-character
// drive and the rest.
func splitWindowsDrive(s string) (drive, rest string) {
	n := 0
	for i := range s {
		if n == 2 {
			return s[:i], s[i:]
		}
		n++
	}
	return s, ""
}

func windowsSegments(rest string) []string {
	var out []string
	for _, seg := range strings.FieldsFunc(rest, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg != "." {
			out = append(out, seg)
		}
	}
	return out
}

// NormPosix is Python's posixpath.normpath (design/sdk-model.md conventions,
// "POSIX-normalise"): it collapses "." segments, duplicate slashes and
// "x/.." pairs lexically, drops ".." directly under the root, keeps a
// leading "//" (exactly two slashes) and returns "." for "". Backslashes are
// ordinary characters.
func NormPosix(p string) string {
	if p == "" {
		return "."
	}
	anchor := ""
	if strings.HasPrefix(p, "/") {
		anchor = "/"
		if strings.HasPrefix(p, "//") && !strings.HasPrefix(p, "///") {
			anchor = "//"
		}
	}
	var comps []string
	for _, c := range strings.Split(p, "/") {
		switch {
		case c == "" || c == ".":
		case c != ".." || (anchor == "" && len(comps) == 0) || (len(comps) > 0 && comps[len(comps)-1] == ".."):
			comps = append(comps, c)
		case len(comps) > 0:
			comps = comps[:len(comps)-1]
		}
	}
	out := anchor + strings.Join(comps, "/")
	if out == "" {
		return "."
	}
	return out
}

// posixAnchorParts splits p the way PurePosixPath does: the anchor ("",
// "/" or "//") and the non-empty, non-"." segments.
func posixAnchorParts(p string) (anchor string, parts []string) {
	if strings.HasPrefix(p, "/") {
		anchor = "/"
		if strings.HasPrefix(p, "//") && !strings.HasPrefix(p, "///") {
			anchor = "//"
		}
	}
	for _, c := range strings.Split(p, "/") {
		if c != "" && c != "." {
			parts = append(parts, c)
		}
	}
	return anchor, parts
}

// pathlibPosix returns the text of PurePosixPath(p).
func pathlibPosix(p string) string {
	anchor, parts := posixAnchorParts(p)
	if out := anchor + strings.Join(parts, "/"); out != "" {
		return out
	}
	return "."
}

// coercePosix is the Python SDK's coerce_posix_path for a string: backslashes
// become "/" and the result is read as a PurePosixPath.
func coercePosix(p string) string {
	return pathlibPosix(strings.ReplaceAll(p, `\`, "/"))
}

func hasParentSegment(p string) bool {
	_, parts := posixAnchorParts(p)
	for _, s := range parts {
		if s == ".." {
			return true
		}
	}
	return false
}

// posixRelativeTo is PurePosixPath(path).relative_to(root) for the
// lexical, segment-wise comparison the Python SDK uses: ok is false when root is
// not path itself or one of its parents. rel is "." for root itself.
func posixRelativeTo(path, root string) (rel string, ok bool) {
	pa, pp := posixAnchorParts(path)
	ra, rp := posixAnchorParts(root)
	if pa != ra || len(rp) > len(pp) {
		return "", false
	}
	for i := range rp {
		if rp[i] != pp[i] {
			return "", false
		}
	}
	if len(pp) == len(rp) {
		return ".", true
	}
	return strings.Join(pp[len(rp):], "/"), true
}

// joinPosix is PurePosixPath(parent) / child for two pathlib-normal texts:
// an absolute child replaces the parent.
func joinPosix(parent, child string) string {
	switch {
	case strings.HasPrefix(child, "/"):
		return child
	case parent == ".":
		return child
	case child == ".":
		return parent
	case strings.HasSuffix(parent, "/"):
		return parent + child
	}
	return parent + "/" + child
}

// JoinEntryPath joins a Dir child key to its parent's path as the Python SDK does
// when walking entries (design/sdk-model.md §3.2): both are coerced to POSIX (backslashes
// become "/") and joined with PurePosixPath semantics, so an absolute child
// replaces the parent, "" and "." leave the parent unchanged, and ".." is
// kept. JoinEntryPath("safe", "../x") is "safe/../x";
// JoinEntryPath("safe", "/tmp/x") is "/tmp/x".
func JoinEntryPath(parent, child string) string {
	return joinPosix(coercePosix(parent), coercePosix(child))
}

// ValidateEntryPath applies the Python SDK's entry path rules (design/sdk-model.md §3.2) to one
// manifest key or Dir child key and returns it as a normalized
// workspace-relative POSIX path ("." for "" and "."). Errors are
// *Error values from NewInvalidManifestPathError: reason "absolute" for
// Windows-absolute text (reported with "/" separators, `C:\tmp\x` as
// "C:/tmp/x") and for POSIX-absolute paths, reason "escape_root" for any
// ".." segment, even one that would not escape ("a/../b").
func ValidateEntryPath(key string) (string, error) {
	if IsWindowsAbsolute(key) {
		return "", sandbox.NewInvalidManifestPathError(windowsAsPosix(key), sandbox.ReasonAbsolute)
	}
	rel := coercePosix(key)
	if err := validateRelPath(rel); err != nil {
		return "", err
	}
	return rel, nil
}

// validateRelPath is the Python SDK's Manifest._validate_rel_path for an already
// coerced path text (a key, or a parent joined with a child key).
func validateRelPath(rel string) error {
	if IsWindowsAbsolute(rel) {
		return sandbox.NewInvalidManifestPathError(windowsAsPosix(rel), sandbox.ReasonAbsolute)
	}
	rel = coercePosix(rel)
	if strings.HasPrefix(rel, "/") {
		return sandbox.NewInvalidManifestPathError(rel, sandbox.ReasonAbsolute)
	}
	if hasParentSegment(rel) {
		return sandbox.NewInvalidManifestPathError(rel, sandbox.ReasonEscapeRoot)
	}
	return nil
}

// ResolveWorkspacePath follows the Python SDK's resolve_workspace_path
// (design/sdk-model.md §3.3) and returns the absolute POSIX destination of rel under root.
//
//   - Windows-absolute rel: error reason "absolute" (rel with "/").
//   - Both are coerced to POSIX.
//   - Absolute rel: error "absolute" unless allowAbsoluteWithinRoot. When
//     allowed, both are POSIX-normalised and the normalised rel must lie
//     under the normalised root. Failures report the normalised rel
//     ("/workspace/../etc/passwd" as "/etc/passwd"). The normalised rel is
//     returned. This check is lexical; the Python SDK's extra check of a
//     root that exists on this host (symlinks followed) is
//     hostsource.ResolveWorkspacePath.
//   - Relative rel with a ".." segment: error "escape_root".
//   - Otherwise root/rel, or root itself for "" and ".".
//
// Errors are *Error values from NewInvalidManifestPathError.
func ResolveWorkspacePath(root, rel string, allowAbsoluteWithinRoot bool) (string, error) {
	if IsWindowsAbsolute(rel) {
		return "", sandbox.NewInvalidManifestPathError(windowsAsPosix(rel), sandbox.ReasonAbsolute)
	}
	relPath := coercePosix(rel)
	rootPath := coercePosix(root)
	if strings.HasPrefix(relPath, "/") {
		if !allowAbsoluteWithinRoot {
			return "", sandbox.NewInvalidManifestPathError(relPath, sandbox.ReasonAbsolute)
		}
		relPath = NormPosix(relPath)
		rootPath = NormPosix(rootPath)
		if _, ok := posixRelativeTo(relPath, rootPath); !ok {
			return "", sandbox.NewInvalidManifestPathError(relPath, sandbox.ReasonAbsolute)
		}
		return relPath, nil
	}
	if hasParentSegment(relPath) {
		return "", sandbox.NewInvalidManifestPathError(relPath, sandbox.ReasonEscapeRoot)
	}
	return joinPosix(rootPath, relPath), nil
}

// errRootNotAbsolute is the Python SDK's ValueError for a relative workspace root.
var errRootNotAbsolute = errors.New("sandbox workspace root must be absolute")

// WorkspacePath is what the provider function workspace_path exposes: the
// Python SDK's resolve_workspace_path (design/sdk-model.md §3.3) without absolute paths, after
// checking that root is absolute once coerced to POSIX (else the error
// "sandbox workspace root must be absolute", as WorkspacePathPolicy).
// WorkspacePath("/workspace", "a\\b") is "/workspace/a/b"; errors carry
// the reason codes "absolute" and "escape_root".
func WorkspacePath(root, path string) (string, error) {
	if !strings.HasPrefix(coercePosix(root), "/") {
		return "", errRootNotAbsolute
	}
	return ResolveWorkspacePath(root, path, false)
}
