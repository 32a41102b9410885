package mount

import (
	"sort"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// ResolveMountPath returns where a mount appears in the workspace (design/sdk-model.md
// §5.2), given the manifest root, the entry's mount_path (nil when unset)
// and dest, the entry's resolved destination (root joined with its manifest
// key path). The result is in pathlib form (no "." segments, no trailing
// slash) but ".." is kept: "/workspace/repo/../actual" stays as it is.
//
//   - mount_path set: Windows-absolute → *sandbox.Error from
//     sandbox.NewInvalidManifestPathError with the path written with "/"
//     and reason "absolute"; POSIX-absolute → used as it is (it may lie
//     outside the workspace); relative → root/mount_path.
//   - mount_path unset: dest absolute and under root → root/(dest relative
//     to root); absolute elsewhere → dest; relative → root/dest.
//
// The root is coerced to POSIX (backslashes become "/"); mount_path and dest
// are read as POSIX paths whose backslashes are ordinary characters. Follows
// the Python SDK's Mount._resolve_mount_path_for_root.
func ResolveMountPath(root string, mountPath *string, dest string) (string, error) {
	rootPath := posix.CoercePosix(root)
	if mountPath != nil {
		if win, ok := posix.WindowsAbsoluteAsPosix(*mountPath); ok {
			return "", sandbox.NewInvalidManifestPathError(win, sandbox.ReasonAbsolute)
		}
		mp := posix.PurePosix(*mountPath)
		if strings.HasPrefix(mp, "/") {
			return mp, nil
		}
		return posix.JoinPosix(rootPath, mp), nil
	}
	d := posix.PurePosix(dest)
	if strings.HasPrefix(d, "/") {
		rel, ok := posix.RelativeTo(d, rootPath)
		if !ok {
			return d, nil
		}
		return posix.JoinPosix(rootPath, rel), nil
	}
	return posix.JoinPosix(rootPath, d), nil
}

// NormalizeMountTarget is the manifest-level normalisation of a resolved
// mount path p (design/sdk-model.md §5.2, mount_targets): a path inside root (or a relative
// one, read under root) has its "." and "x/.." segments collapsed lexically,
// "/workspace/repo/../actual" becoming "/workspace/actual"; an absolute path
// outside root is returned untouched. Errors are *sandbox.Error values from
// sandbox.NewInvalidManifestPathError: reason "escape_root" with rel = p
// when ".." would climb above root ("/workspace/../../tmp"), reason
// "absolute" for a Windows-absolute p. Follows the Python SDK's
// Manifest._normalize_in_workspace_path.
func NormalizeMountTarget(root, p string) (string, error) {
	if win, ok := posix.WindowsAbsoluteAsPosix(p); ok {
		return "", sandbox.NewInvalidManifestPathError(win, sandbox.ReasonAbsolute)
	}
	rootPath := posix.CoercePosix(root)
	path := posix.PurePosix(p)
	rel := path
	if strings.HasPrefix(path, "/") {
		r, ok := posix.RelativeTo(path, rootPath)
		if !ok {
			return p, nil
		}
		rel = r
	}
	var parts []string
	for _, seg := range strings.Split(rel, "/") {
		switch seg {
		case "", ".":
		case "..":
			if len(parts) == 0 {
				return "", sandbox.NewInvalidManifestPathError(path, sandbox.ReasonEscapeRoot)
			}
			parts = parts[:len(parts)-1]
		default:
			parts = append(parts, seg)
		}
	}
	if len(parts) == 0 {
		return rootPath, nil
	}
	return posix.JoinPosix(rootPath, strings.Join(parts, "/")), nil
}

// Target is one mount of a manifest with the path it is mounted at: Key is
// the entry's manifest path (relative, "/"-separated), Path the resolved and
// normalised mount path (ResolveMountPath then NormalizeMountTarget).
type Target struct {
	Key   string
	Mount *Mount
	Path  string
}

// SortTargets orders targets deepest first: by the number of components of
// Path (the root "/" counts as one), descending, keeping the given order
// among equal depths, so nested mounts are handled before the mounts that
// contain them. Follows the Python SDK's Manifest.mount_targets, a stable sort
// on len(path.parts) with reverse=True.
func SortTargets(targets []Target) {
	sort.SliceStable(targets, func(i, j int) bool {
		return pathDepth(targets[i].Path) > pathDepth(targets[j].Path)
	})
}

// pathDepth is len(PurePosixPath(p).parts).
func pathDepth(p string) int {
	n := 0
	pp := posix.PurePosix(p)
	if strings.HasPrefix(pp, "/") {
		n = 1
	}
	for _, seg := range strings.Split(pp, "/") {
		if seg != "" && seg != "." {
			n++
		}
	}
	return n
}
