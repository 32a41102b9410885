package gitrepo

import (
	"path"
	"regexp"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// Reasons of a GitSubpathError (design/sdk-model.md §2.6), checked in this order.
const (
	ReasonSubpathEmpty           = "empty"
	ReasonSubpathAbsolute        = "absolute"
	ReasonSubpathWindowsPath     = "windows_path"
	ReasonSubpathParentTraversal = "parent_traversal"
)

var (
	commitRef    = regexp.MustCompile(`^[0-9a-fA-F]{7,40}$`)
	windowsDrive = regexp.MustCompile(`^[A-Za-z]:`)
)

// LooksLikeCommitRef reports whether ref is a commit SHA or an abbreviation
// of one: it fully matches [0-9a-fA-F]{7,40}, as the Python SDK's GitRepo.
func LooksLikeCommitRef(ref string) bool { return commitRef.MatchString(ref) }

// ValidateGitSubpath checks a GitRepo subpath with the Python SDK's rules and
// returns its POSIX form, or "" for the repository root (nil, "" and
// anything reading as "."). repo is only used in the error's context.
// Errors are *Error with code git_subpath_error and a reason of empty,
// absolute, windows_path or parent_traversal, checked in that order.
func ValidateGitSubpath(repo string, subpath *string) (string, error) {
	if subpath == nil || *subpath == "" {
		return "", nil
	}
	orig := *subpath
	s := strings.TrimSpace(orig)
	fail := func(reason string) error {
		return &sandbox.Error{
			Code:    sandbox.CodeGitSubpathError,
			Op:      "materialize",
			Message: "git repo subpath must be a relative path inside the repository: " + orig,
			Context: map[string]any{"repo": repo, "subpath": orig, "reason": reason},
		}
	}
	if s == "" {
		return "", fail(ReasonSubpathEmpty)
	}
	clean := path.Clean(s)
	if clean == "." && !strings.Contains(s, "..") {
		return "", nil
	}
	switch {
	case strings.HasPrefix(s, "/"):
		return "", fail(ReasonSubpathAbsolute)
	case strings.Contains(orig, `\`) || windowsDrive.MatchString(s):
		return "", fail(ReasonSubpathWindowsPath)
	}
	for _, seg := range strings.Split(s, "/") {
		if seg == ".." {
			return "", fail(ReasonSubpathParentTraversal)
		}
	}
	return clean, nil
}
