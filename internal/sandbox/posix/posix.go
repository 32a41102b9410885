package posix

// The pathlib-like path forms the Python SDK uses, for the packages built on
// the core (the manifest model, mounts).

// PurePosix returns the text of Python's PurePosixPath(p): empty and "."
// segments and a trailing slash dropped, ".." kept, a leading "//" kept as
// its own root, "." for "". Backslashes are ordinary characters (a
// pathlib Path built from a string on POSIX).
func PurePosix(p string) string { return pathlibPosix(p) }

// CoercePosix is the Python SDK's coerce_posix_path for a string: backslashes
// become "/", then PurePosix.
func CoercePosix(p string) string { return coercePosix(p) }

// WindowsAbsoluteAsPosix returns PureWindowsPath(p).as_posix() and true
// when p is Windows-absolute in the Python SDK's sense (IsWindowsAbsolute), as the
// Python SDK reports such paths in errors ("C:\x" as "C:/x"); otherwise "" and
// false.
func WindowsAbsoluteAsPosix(p string) (string, bool) {
	if !IsWindowsAbsolute(p) {
		return "", false
	}
	return windowsAsPosix(p), true
}

// RelativeTo is PurePosixPath(path).relative_to(root), compared
// segment by segment without touching the file system: ok is false when
// root is neither path nor one of its parents; rel is "." for root itself.
// Both arguments should already be in PurePosix form.
func RelativeTo(path, root string) (rel string, ok bool) { return posixRelativeTo(path, root) }

// JoinPosix is PurePosixPath(parent) / child for two PurePosix texts: an
// absolute child replaces the parent, "." on either side is neutral.
func JoinPosix(parent, child string) string { return joinPosix(parent, child) }
