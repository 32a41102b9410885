package posix

import (
	"errors"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// WorkspacePathPolicy validates paths that sandbox file operations are given,
// relative to a workspace root and a list of extra path grants: the Python SDK's
// WorkspacePathPolicy (design/sdk-model.md §3.4) in its lexical mode (the one remote
// sandboxes use; no host filesystem access). Results are absolute,
// POSIX-normalised paths; errors are *Error values.
type WorkspacePathPolicy struct {
	sandboxRoot string // the root coerced to POSIX
	grants      []PathGrant
}

// PathGrantRule is one grant as the remote path helper receives it: the
// grant's POSIX root and whether it is read-only.
type PathGrantRule struct {
	Root     string
	ReadOnly bool
}

// NewWorkspacePathPolicy builds a policy for root and grants (grants made by
// NewPathGrant; the slice is copied). root must be absolute once coerced to
// POSIX, else the error "sandbox workspace root must be absolute". The
// policy is lexical: it never asks whether root exists on this host.
func NewWorkspacePathPolicy(root string, grants []PathGrant) (*WorkspacePathPolicy, error) {
	sandboxRoot := coercePosix(root)
	if !strings.HasPrefix(sandboxRoot, "/") {
		return nil, errRootNotAbsolute
	}
	return &WorkspacePathPolicy{
		sandboxRoot: sandboxRoot,
		grants:      append([]PathGrant(nil), grants...),
	}, nil
}

// Root returns the POSIX-normalised workspace root (the Python SDK's
// sandbox_root()).
func (p *WorkspacePathPolicy) Root() string { return NormPosix(p.sandboxRoot) }

// AbsoluteWorkspacePath follows the Python SDK's absolute_workspace_path
// (design/sdk-model.md §3.4): a relative path is joined to the root, an absolute one taken
// as is, and the POSIX-normalised result must lie under the root; grants
// are not considered. "pkg/../secret.txt" gives "/workspace/secret.txt".
// Errors (InvalidManifestPathError) report the input in POSIX form with
// reason "absolute" when the input was absolute (or Windows-absolute), else
// "escape_root".
func (p *WorkspacePathPolicy) AbsoluteWorkspacePath(path string) (string, error) {
	if IsWindowsAbsolute(path) {
		return "", sandbox.NewInvalidManifestPathError(windowsAsPosix(path), sandbox.ReasonAbsolute)
	}
	return p.absoluteWorkspacePosix(coercePosix(path))
}

// RelativePath follows the Python SDK's relative_path (design/sdk-model.md §3.4): as
// AbsoluteWorkspacePath, then relative to the root; the root itself gives
// ".". Errors as AbsoluteWorkspacePath.
func (p *WorkspacePathPolicy) RelativePath(path string) (string, error) {
	if IsWindowsAbsolute(path) {
		return "", sandbox.NewInvalidManifestPathError(windowsAsPosix(path), sandbox.ReasonAbsolute)
	}
	abs, err := p.absoluteWorkspacePosix(coercePosix(path))
	if err != nil {
		return "", err
	}
	rel, _ := posixRelativeTo(abs, p.Root())
	return rel, nil
}

// NormalizePath follows the Python SDK's normalize_path in lexical mode
// (design/sdk-model.md §3.4). A relative path must stay under the root after
// normalisation (grants never apply to it). An absolute path is normalised
// and accepted when under the root, else when under a grant, else refused
// with reason "absolute". Among matching grants the one with the longest
// root (most segments) wins; if it is read-only and forWrite is true the
// error is the Python SDK's WorkspaceArchiveWriteError: code
// workspace_archive_write_error, op "write", message "failed to write
// archive for path: <path>", context path, reason
// "read_only_extra_path_grant" and grant_path, retryable unknown (nil).
// Windows-absolute input is refused as "absolute" (such paths are never
// native on the hosts this engine runs on). A grant whose root is "/" gives
// the error "sandbox path grant path must not be filesystem root".
func (p *WorkspacePathPolicy) NormalizePath(path string, forWrite bool) (string, error) {
	if IsWindowsAbsolute(path) {
		return "", sandbox.NewInvalidManifestPathError(windowsAsPosix(path), sandbox.ReasonAbsolute)
	}
	original := coercePosix(path)
	var normalized string
	if strings.HasPrefix(original, "/") {
		normalized = NormPosix(original)
	} else {
		var err error
		if normalized, err = p.absoluteWorkspacePosix(original); err != nil {
			return "", err
		}
	}
	if _, ok := posixRelativeTo(normalized, p.Root()); ok {
		return normalized, nil
	}
	grant, err := p.matchingGrant(normalized)
	if err != nil {
		return "", err
	}
	if !strings.HasPrefix(original, "/") || grant == nil {
		return "", invalidPolicyPath(original)
	}
	if forWrite && grant.ReadOnly {
		return "", &sandbox.Error{
			Code:    sandbox.CodeWorkspaceArchiveWrite,
			Op:      "write",
			Message: "failed to write archive for path: " + normalized,
			Context: map[string]any{
				"path":       normalized,
				"reason":     sandbox.ReasonReadOnlyGrant,
				"grant_path": grant.Path,
			},
		}
	}
	return normalized, nil
}

// ExtraPathGrantRules follows the Python SDK's extra_path_grant_rules: each
// grant's POSIX root and read-only flag, in order, as passed to the remote
// path helper. A Windows-absolute grant path gives "sandbox path grant path
// must be POSIX absolute"; a root grant "sandbox path grant path must not
// be filesystem root".
func (p *WorkspacePathPolicy) ExtraPathGrantRules() ([]PathGrantRule, error) {
	rules := make([]PathGrantRule, 0, len(p.grants))
	for _, g := range p.grants {
		if IsWindowsAbsolute(g.Path) {
			return nil, errors.New(grantMsgPathNotAbsolute)
		}
		root := coercePosix(g.Path)
		if root == "/" || root == "//" {
			return nil, errors.New(grantMsgRoot)
		}
		rules = append(rules, PathGrantRule{Root: root, ReadOnly: g.ReadOnly})
	}
	return rules, nil
}

// absoluteWorkspacePosix is the Python SDK's _absolute_workspace_posix_path for a
// coerced path.
func (p *WorkspacePathPolicy) absoluteWorkspacePosix(path string) (string, error) {
	root := p.Root()
	candidate := path
	if !strings.HasPrefix(path, "/") {
		candidate = joinPosix(root, path)
	}
	normalized := NormPosix(candidate)
	if _, ok := posixRelativeTo(normalized, root); !ok {
		return "", invalidPolicyPath(path)
	}
	return normalized, nil
}

// matchingGrant returns the grant with the longest root containing path,
// or nil.
func (p *WorkspacePathPolicy) matchingGrant(path string) (*PathGrant, error) {
	var best *PathGrant
	bestLen := -1
	for i := range p.grants {
		root := coercePosix(p.grants[i].Path)
		if root == "/" || root == "//" {
			return nil, errors.New(grantMsgRoot)
		}
		if _, ok := posixRelativeTo(path, root); !ok {
			continue
		}
		anchor, parts := posixAnchorParts(root)
		n := len(parts)
		if anchor != "" {
			n++
		}
		if n > bestLen {
			best, bestLen = &p.grants[i], n
		}
	}
	return best, nil
}

// invalidPolicyPath is the Python SDK's _invalid_path_error for a coerced path.
func invalidPolicyPath(path string) *sandbox.Error {
	if strings.HasPrefix(path, "/") {
		return sandbox.NewInvalidManifestPathError(path, sandbox.ReasonAbsolute)
	}
	return sandbox.NewInvalidManifestPathError(path, sandbox.ReasonEscapeRoot)
}
