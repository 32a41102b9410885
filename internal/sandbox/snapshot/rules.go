// Package snapshot persists a workspace root as the Python SDK does: a tar
// stream of workspace-relative, "."-rooted members that leaves out the skip
// paths (ephemeral entries, mount targets under the root, runtime helper
// directories), its archive checksum and the SDK's workspace fingerprint
// (workspace_tar_sha256_v1); and hydrates a root from such an archive after
// validating every member. It knows nothing about Terraform.
package snapshot

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
)

// FingerprintVersion is the Python SDK's version tag of the workspace
// fingerprint.
const FingerprintVersion = "workspace_tar_sha256_v1"

// ErrSkipOverlapsMount is the Python SDK's refusal of a skip path that
// overlaps a mount path.
var ErrSkipOverlapsMount = errors.New("persist workspace skip path must not overlap mount path")

// ErrSnapshotID is the Python SDK's refusal of a local snapshot id that is
// not a single path segment.
var ErrSnapshotID = errors.New("LocalSnapshot id must be a single path segment")

// LocalPath is where a local snapshot with the given id lives:
// <base>/<id>.tar. The id must be a single path segment (not empty, ".",
// "..", nor holding "/" or "\").
func LocalPath(base, id string) (string, error) {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`) {
		return "", ErrSnapshotID
	}
	return path.Join(base, id+".tar"), nil
}

// memberRel turns a tar member name into a clean workspace-relative path:
// the leading "./" (and, when rootName is set, "<rootName>/") is removed;
// "." is the root itself.
func memberRel(member, rootName string) string {
	m := strings.TrimPrefix(member, "./")
	if rootName != "" {
		if m == rootName {
			return "."
		}
		m = strings.TrimPrefix(m, rootName+"/")
	}
	m = strings.TrimSuffix(m, "/")
	if m == "" {
		return "."
	}
	return path.Clean(m)
}

// within reports whether rel is p or lies below it.
func within(rel, p string) bool {
	return p == "." || rel == p || strings.HasPrefix(rel, p+"/")
}

// ShouldSkipTarMember is the Python SDK's should_skip_tar_member: whether
// the member (workspace-relative, optionally under rootName) is one of the
// skip paths or lies below one.
func ShouldSkipTarMember(member string, skipRelPaths []string, rootName string) bool {
	rel := memberRel(member, rootName)
	for _, s := range skipRelPaths {
		if s = memberRel(s, ""); s != "." && within(rel, s) {
			return true
		}
	}
	return false
}

// SkipPaths is what a persist leaves out, as clean workspace-relative
// paths.
type SkipPaths struct {
	// Excluded are ephemeral entries and other paths the caller names.
	Excluded []string
	// Mounts are the mount targets under the root.
	Mounts []string
}

// Check refuses an excluded path that overlaps a mount path (equal, or one
// below the other), with the Python SDK's message naming both.
func (s SkipPaths) Check() error {
	for _, e := range s.Excluded {
		for _, m := range s.Mounts {
			if within(e, m) || within(m, e) {
				return fmt.Errorf("%w: %s overlaps %s", ErrSkipOverlapsMount, e, m)
			}
		}
	}
	return nil
}

// All returns every skip path, sorted and de-duplicated.
func (s SkipPaths) All() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range append(append([]string(nil), s.Excluded...), s.Mounts...) {
		p = memberRel(p, "")
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// CleanExclude checks and cleans a caller's exclude path: workspace-relative,
// no "..", not the root.
func CleanExclude(p string) (string, error) {
	c := memberRel(p, "")
	switch {
	case strings.HasPrefix(p, "/"):
		return "", fmt.Errorf("exclude path %q must be workspace-relative", p)
	case c == "." || c == ".." || strings.HasPrefix(c, "../"):
		return "", fmt.Errorf("exclude path %q must name a path below the workspace root", p)
	}
	return c, nil
}

// MountsUnder turns absolute mount points into workspace-relative paths
// below root (the root itself and points outside it are left out).
func MountsUnder(root string, points []string) []string {
	var out []string
	prefix := strings.TrimSuffix(root, "/") + "/"
	for _, p := range points {
		if strings.HasPrefix(p, prefix) {
			out = append(out, strings.TrimPrefix(p, prefix))
		}
	}
	return out
}
