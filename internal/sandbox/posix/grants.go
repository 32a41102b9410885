package posix

import (
	"errors"
	"strings"
)

// Messages of the Python SDK's SandboxPathGrant validators (design/sdk-model.md §3.6).
const (
	grantMsgPathNotAbsolute     = "sandbox path grant path must be POSIX absolute"
	grantMsgRoot                = "sandbox path grant path must not be filesystem root"
	grantMsgHostUNC             = "sandbox path grant host_path does not support UNC or device paths"
	grantMsgHostParent          = "sandbox path grant host_path must not contain parent segments"
	grantMsgHostNotAbsolute     = "sandbox path grant host_path must be an absolute host path"
	grantMsgHostNotAbsoluteHere = "sandbox path grant host_path must be absolute on the current host: "
)

// PathGrant is one extra path outside the workspace that sandbox file
// operations may reach, the Python SDK's SandboxPathGrant (design/sdk-model.md §3.6). Path is the
// POSIX path seen inside the sandbox; HostPath, when set, is the native host
// source behind it (bind mounts, local sources). Build one with
// NewPathGrant so that every check and normalisation is applied. The JSON
// form is the Python SDK's: host_path is omitted when nil, description is null.
type PathGrant struct {
	Path        string  `json:"path"`
	ReadOnly    bool    `json:"read_only"`
	Description *string `json:"description"`
	HostPath    *string `json:"host_path,omitempty"`
}

// GrantError is a rejected PathGrant field, the Go form of the Python SDK's
// pydantic validation error: Field is "path" or "host_path" (the error's
// location) and Message the Python SDK's message, without pydantic's
// "Value error, " prefix.
type GrantError struct {
	Field   string
	Message string
}

// Error returns Message.
func (e *GrantError) Error() string { return e.Message }

// NewPathGrant validates and normalises a grant as the Python SDK's
// SandboxPathGrant does (design/sdk-model.md §3.6):
//
//   - path must be POSIX-absolute after posixpath.normpath ("/tmp/" becomes
//     "/tmp", "/a//b" becomes "/a/b"); Windows-absolute text and relative
//     paths give "sandbox path grant path must be POSIX absolute"; "/" and
//     "//" give "sandbox path grant path must not be filesystem root".
//   - host_path (nil means none) is not trimmed. A leading `\\` or `//`
//     gives "... host_path does not support UNC or device paths"; any ".."
//     segment (split on "/" and `\`) "... host_path must not contain parent
//     segments"; a drive-letter path is kept in Windows form
//     ("C:/Users/x" becomes `C:\Users\x`), other Windows-absolute forms are
//     UNC/device errors; a POSIX-absolute path is normalised; a filesystem
//     root gives "sandbox path grant path must not be filesystem root" (the
//     Python SDK's wording, also for host_path); anything else "... host_path
//     must be an absolute host path".
//
// Errors are *GrantError naming the field; path is checked before
// host_path.
func NewPathGrant(path string, readOnly bool, description, hostPath *string) (PathGrant, error) {
	p, err := validateGrantPath(path)
	if err != nil {
		return PathGrant{}, &GrantError{Field: "path", Message: err.Error()}
	}
	g := PathGrant{Path: p, ReadOnly: readOnly}
	if description != nil {
		d := *description
		g.Description = &d
	}
	if hostPath != nil {
		h, err := validateGrantHostPath(*hostPath)
		if err != nil {
			return PathGrant{}, &GrantError{Field: "host_path", Message: err.Error()}
		}
		g.HostPath = &h
	}
	return g, nil
}

func validateGrantPath(v string) (string, error) {
	if IsWindowsAbsolute(v) {
		// Only natively absolute on Windows hosts, which this engine does
		// not run on.
		return "", errors.New(grantMsgPathNotAbsolute)
	}
	p := pathlibPosix(NormPosix(v))
	if !strings.HasPrefix(p, "/") {
		return "", errors.New(grantMsgPathNotAbsolute)
	}
	if p == "/" || p == "//" {
		return "", errors.New(grantMsgRoot)
	}
	return p, nil
}

func isPathSep(r rune) bool { return r == '/' || r == '\\' }

func validateGrantHostPath(v string) (string, error) {
	if strings.HasPrefix(v, `\\`) || strings.HasPrefix(v, "//") {
		return "", errors.New(grantMsgHostUNC)
	}
	for _, seg := range strings.FieldsFunc(v, isPathSep) {
		if seg == ".." {
			return "", errors.New(grantMsgHostParent)
		}
	}
	// PureWindowsPath(v).is_absolute(): two leading separators (UNC or
	// device, in any mix of "/" and `\`) or a drive followed by a root.
	if len(v) >= 2 && isPathSep(rune(v[0])) && isPathSep(rune(v[1])) {
		return "", errors.New(grantMsgHostUNC)
	}
	if IsWindowsAbsolute(v) {
		drive, rest := splitWindowsDrive(v)
		if c := drive[0] | 0x20; c < 'a' || c > 'z' {
			return "", errors.New(grantMsgHostUNC)
		}
		segs := windowsSegments(rest)
		if len(segs) == 0 {
			return "", errors.New(grantMsgRoot)
		}
		return drive + `\` + strings.Join(segs, `\`), nil
	}
	p := pathlibPosix(NormPosix(v))
	if !strings.HasPrefix(p, "/") {
		return "", errors.New(grantMsgHostNotAbsolute)
	}
	if p == "/" || p == "//" {
		return "", errors.New(grantMsgRoot)
	}
	return p, nil
}

// HostRoot returns the grant's root on the host: HostPath when set, else
// Path (design/sdk-model.md §3.6, "effective host root").
func (g PathGrant) HostRoot() string {
	if g.HostPath != nil {
		return *g.HostPath
	}
	return g.Path
}

// LexicalHostRoot returns HostRoot after the checks the Python SDK's
// sandbox_path_grant_host_path makes before following symlinks
// (design/sdk-model.md §3.6): a HostPath that is not absolute on this host
// (a Windows path) gives "sandbox path grant host_path must be absolute on
// the current host: <host_path>"; a root gives "sandbox path grant path
// must not be filesystem root". hostsource.ResolveGrantRoot follows the
// symlinks.
func (g PathGrant) LexicalHostRoot() (string, error) {
	raw := g.HostRoot()
	if g.HostPath != nil && !strings.HasPrefix(raw, "/") {
		return "", errors.New(grantMsgHostNotAbsoluteHere + raw)
	}
	if p := pathlibPosix(raw); p == "/" || p == "//" {
		return "", errors.New(grantMsgRoot)
	}
	return raw, nil
}
