package posix

import (
	"errors"
	"strings"
)

// NormalizeSandboxCwd follows the Python SDK's normalize_sandbox_cwd (design/sdk-model.md §3.5)
// for a run working directory relative to the workspace root. Checks, in
// order, each an error with the Python SDK's message: a backslash ("sandbox.cwd
// must use POSIX path separators"), blank or whitespace-only text
// ("sandbox.cwd must be non-empty"), Windows-absolute or POSIX-absolute
// ("sandbox.cwd must be workspace-relative"), any ".." segment
// ("sandbox.cwd must not contain parent segments"). The result is
// POSIX-normalised: "tasks/./a/" gives "tasks/a", "./tasks" gives "tasks".
func NormalizeSandboxCwd(cwd string) (string, error) {
	if strings.Contains(cwd, `\`) {
		return "", errors.New("sandbox.cwd must use POSIX path separators")
	}
	if pyStrip(cwd) == "" {
		return "", errors.New("sandbox.cwd must be non-empty")
	}
	p := pathlibPosix(cwd)
	if IsWindowsAbsolute(cwd) || strings.HasPrefix(p, "/") {
		return "", errors.New("sandbox.cwd must be workspace-relative")
	}
	if hasParentSegment(p) {
		return "", errors.New("sandbox.cwd must not contain parent segments")
	}
	return NormPosix(p), nil
}

// WorkspaceScope anchors model-facing relative paths under a run working
// directory, the Python SDK's SandboxWorkspaceScope (design/sdk-model.md §3.5). It changes only
// how relative paths are written; it does not confine access. The zero
// value has no working directory and leaves paths as they are.
type WorkspaceScope struct {
	cwd string // normalised; "" means none
}

// NewWorkspaceScope returns the scope for cwd (the Python SDK's from_cwd), which
// must pass NormalizeSandboxCwd; its errors are returned unchanged.
func NewWorkspaceScope(cwd string) (WorkspaceScope, error) {
	n, err := NormalizeSandboxCwd(cwd)
	if err != nil {
		return WorkspaceScope{}, err
	}
	return WorkspaceScope{cwd: n}, nil
}

// Cwd returns the normalised working directory, or "" when there is none.
func (s WorkspaceScope) Cwd() string { return s.cwd }

// Anchor follows the Python SDK's anchor: with a working directory, a path that
// is neither Windows-absolute nor POSIX-absolute (judged on the raw text) is
// joined under it with PurePosixPath semantics ("plot.png" with cwd
// "tasks/a" gives "tasks/a/plot.png"); anything else is returned unchanged.
func (s WorkspaceScope) Anchor(path string) string {
	if s.cwd == "" || IsWindowsAbsolute(path) || strings.HasPrefix(path, "/") {
		return path
	}
	return joinPosix(s.cwd, pathlibPosix(path))
}

// ModelPath follows the Python SDK's model_path: a workspace-root-relative path
// (coerced to POSIX; an absolute one gives the error "workspace-relative
// display paths must not be absolute") is POSIX-normalised and, with a
// working directory, rewritten relative to it ("shared/x" with cwd
// "tasks/a" gives "../../shared/x"). The Python SDK resolves both against the
// process directory (posixpath.relpath); here both are anchored at the
// workspace root, which gives the same result for every path that stays
// inside the workspace.
func (s WorkspaceScope) ModelPath(rel string) (string, error) {
	p := coercePosix(rel)
	if strings.HasPrefix(p, "/") {
		return "", errors.New("workspace-relative display paths must not be absolute")
	}
	n := NormPosix(p)
	if s.cwd == "" {
		return n, nil
	}
	_, start := posixAnchorParts(NormPosix("/" + s.cwd))
	_, target := posixAnchorParts(NormPosix("/" + n))
	i := 0
	for i < len(start) && i < len(target) && start[i] == target[i] {
		i++
	}
	var out []string
	for range start[i:] {
		out = append(out, "..")
	}
	out = append(out, target[i:]...)
	if len(out) == 0 {
		return ".", nil
	}
	return strings.Join(out, "/"), nil
}
