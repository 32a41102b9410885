package sandbox

import (
	"fmt"
	"sort"
	"strings"
)

// Error codes, the Python SDK's ErrorCode values (design/sdk-model.md §9). Every structured engine
// error carries one of them in Error.Code.
const (
	CodeInvalidManifestPath       = "invalid_manifest_path"
	CodeExposedPortUnavailable    = "exposed_port_unavailable"
	CodeExecNonZero               = "exec_nonzero"
	CodeExecTimeout               = "exec_timeout"
	CodeExecTransportError        = "exec_transport_error"
	CodeWorkspaceReadNotFound     = "workspace_read_not_found"
	CodeWorkspaceArchiveReadError = "workspace_archive_read_error"
	CodeWorkspaceArchiveWrite     = "workspace_archive_write_error"
	CodeWorkspaceStartError       = "workspace_start_error"
	CodeWorkspaceStopError        = "workspace_stop_error"
	CodeWorkspaceRootNotFound     = "workspace_root_not_found"
	CodeLocalFileReadError        = "local_file_read_error"
	CodeLocalDirReadError         = "local_dir_read_error"
	CodeLocalChecksumError        = "local_checksum_error"
	CodeGitSubpathError           = "git_subpath_error"
	CodeMountMissingTool          = "mount_missing_tool"
	CodeMountFailed               = "mount_failed"
	CodeMountConfigInvalid        = "mount_config_invalid"
)

// ErrorCodes lists every Python SDK ErrorCode value in the Python SDK's declaration
// order (design/sdk-model.md §9). The constants above name the ones this engine raises.
var ErrorCodes = []string{
	"invalid_manifest_path", "invalid_compression_scheme", "exposed_port_unavailable", "exec_nonzero",
	"exec_timeout", "exec_transport_error", "pty_session_not_found", "apply_patch_invalid_path",
	"apply_patch_invalid_diff", "apply_patch_file_not_found", "apply_patch_decode_error",
	"workspace_read_not_found", "workspace_archive_read_error", "workspace_archive_write_error",
	"workspace_write_type_error", "workspace_stop_error", "workspace_start_error", "workspace_root_not_found",
	"local_file_read_error", "local_dir_read_error", "local_checksum_error", "git_missing_in_image",
	"git_clone_error", "git_subpath_error", "git_copy_error", "mount_missing_tool", "mount_failed",
	"mount_config_invalid", "skills_config_invalid", "sandbox_config_invalid", "snapshot_persist_error",
	"snapshot_restore_error", "snapshot_not_restorable",
}

// Reason codes carried in Error.Context["reason"], the Python SDK's reasons.
const (
	ReasonAbsolute              = "absolute"
	ReasonEscapeRoot            = "escape_root"
	ReasonWindowsPath           = "windows_path"
	ReasonParentTraversal       = "parent_traversal"
	ReasonEmpty                 = "empty"
	ReasonSymlinkNotSupported   = "symlink_not_supported"
	ReasonOutsideBaseDir        = "outside_base_dir"
	ReasonPathNotFound          = "path_not_found"
	ReasonPathChangedDuringCopy = "path_changed_during_copy"
	ReasonNotConfigured         = "not_configured"
	ReasonReadOnlyGrant         = "read_only_extra_path_grant"
	// ReasonHardLinkNotSupported is this provider's own: a host source
	// file with more than one link (hostsource.Policy.AllowHardLinks).
	ReasonHardLinkNotSupported = "hard_link_not_supported"
)

// Error is a structured sandbox error, the Go form of the Python SDK's
// SandboxError: a stable Code (error_code), the operation Op, a Message
// reproduced byte-for-byte from the Python SDK where the Python SDK defines one, a
// Context map (always holding "reason" when the Python SDK gives one) and the
// Python SDK's retryable flag (nil means unknown).
type Error struct {
	Code      string
	Op        string
	Message   string
	Context   map[string]any
	Retryable *bool
	Cause     error
}

// Error returns the Python SDK message.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Cause }

// Reason returns Context["reason"], or "" when there is none.
func (e *Error) Reason() string {
	if e == nil || e.Context == nil {
		return ""
	}
	r, _ := e.Context["reason"].(string)
	return r
}

// Detail renders the context as "key: value" lines sorted by key (reason
// first), for a diagnostic's detail text. It never includes the cause's
// text when the context is empty.
func (e *Error) Detail() string {
	if e == nil || len(e.Context) == 0 {
		return ""
	}
	keys := make([]string, 0, len(e.Context))
	for k := range e.Context {
		if k != "reason" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	if r := e.Reason(); r != "" {
		fmt.Fprintf(&b, "reason: %s", r)
	}
	for _, k := range keys {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s: %v", k, e.Context[k])
	}
	return b.String()
}

func boolPtr(b bool) *bool { return &b }

// NewInvalidManifestPathError builds the Python SDK's InvalidManifestPathError
// (design/sdk-model.md §3.2): message "manifest path must be relative: <rel>" for reason
// "absolute", "manifest path must not escape root: <rel>" otherwise;
// op "materialize"; not retryable.
func NewInvalidManifestPathError(rel, reason string) *Error {
	msg := "manifest path must not escape root: " + rel
	if reason == ReasonAbsolute {
		msg = "manifest path must be relative: " + rel
	}
	return &Error{
		Code:      CodeInvalidManifestPath,
		Op:        "materialize",
		Message:   msg,
		Context:   map[string]any{"rel": rel, "reason": reason},
		Retryable: boolPtr(false),
	}
}

// NewLocalFileReadError is the Python SDK's LocalFileReadError: message
// "failed to read local file artifact: <src>", with ctx (which should hold
// "reason") and an optional cause.
func NewLocalFileReadError(src string, ctx map[string]any, cause error) *Error {
	return &Error{
		Code:      CodeLocalFileReadError,
		Op:        "materialize",
		Message:   "failed to read local file artifact: " + src,
		Context:   withSrc(ctx, src),
		Retryable: boolPtr(false),
		Cause:     cause,
	}
}

// NewLocalDirReadError is the Python SDK's LocalDirReadError: message
// "failed to read local dir artifact: <src>".
func NewLocalDirReadError(src string, ctx map[string]any, cause error) *Error {
	return &Error{
		Code:      CodeLocalDirReadError,
		Op:        "materialize",
		Message:   "failed to read local dir artifact: " + src,
		Context:   withSrc(ctx, src),
		Retryable: boolPtr(false),
		Cause:     cause,
	}
}

// NewLocalChecksumError is the Python SDK's LocalChecksumError: message
// "failed to checksum local artifact: <src>".
func NewLocalChecksumError(src string, cause error) *Error {
	return &Error{
		Code:      CodeLocalChecksumError,
		Op:        "materialize",
		Message:   "failed to checksum local artifact: " + src,
		Context:   map[string]any{"src": src},
		Retryable: boolPtr(false),
		Cause:     cause,
	}
}

func withSrc(ctx map[string]any, src string) map[string]any {
	out := map[string]any{"src": src}
	for k, v := range ctx {
		out[k] = v
	}
	return out
}
