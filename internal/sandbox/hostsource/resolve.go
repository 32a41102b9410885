package hostsource

import (
	"errors"
	"os"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// ResolveGrantRoot follows the Python SDK's sandbox_path_grant_host_path
// (design/sdk-model.md §3.6): the grant's LexicalHostRoot with symlinks
// followed as far as it exists on this host (non-strict, like
// Path.resolve). Errors are LexicalHostRoot's, and "sandbox path grant path
// must not resolve to filesystem root" for a root that resolves to "/".
func ResolveGrantRoot(g posix.PathGrant) (string, error) {
	raw, err := g.LexicalHostRoot()
	if err != nil {
		return "", err
	}
	resolved := realpathNonStrict(raw)
	if resolved == "/" {
		return "", errors.New("sandbox path grant path must not resolve to filesystem root")
	}
	return resolved, nil
}

// ResolveWorkspacePath is the Python SDK's resolve_workspace_path
// (design/sdk-model.md §3.3) with its host check: the lexical
// posix.ResolveWorkspacePath and, for an absolute rel allowed within a
// root that exists on this host, rel with symlinks followed must also lie
// under root with symlinks followed, else the error reason is "absolute"
// (reporting the normalised rel).
func ResolveWorkspacePath(root, rel string, allowAbsoluteWithinRoot bool) (string, error) {
	out, err := posix.ResolveWorkspacePath(root, rel, allowAbsoluteWithinRoot)
	if err != nil || !allowAbsoluteWithinRoot || !strings.HasPrefix(posix.CoercePosix(rel), "/") {
		return out, err
	}
	rootPath := posix.NormPosix(posix.CoercePosix(root))
	if hostPathExists(rootPath) {
		if _, ok := posix.RelativeTo(realpathNonStrict(out), realpathNonStrict(rootPath)); !ok {
			return "", sandbox.NewInvalidManifestPathError(out, sandbox.ReasonAbsolute)
		}
	}
	return out, nil
}

// hostPathExists is pathlib's Path.exists(): symlinks are followed and any
// error counts as "does not exist".
func hostPathExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// realpathNonStrict is Python's os.path.realpath(p, strict=False), which
// pathlib's Path.resolve(strict=False) uses: symlinks are followed as far as
// the path exists, the missing remainder is appended lexically, a symlink
// loop stops resolution, and a relative result is made absolute against the
// process working directory.
func realpathNonStrict(p string) string {
	out, _ := joinRealpath("", p, map[string]*string{})
	if !strings.HasPrefix(out, "/") {
		if wd, err := os.Getwd(); err == nil {
			out = pyJoin(wd, out)
		}
	}
	return posix.NormPosix(out)
}

// joinRealpath ports posixpath._joinrealpath (non-strict). seen maps a
// symlink path to its resolution, or to nil while it is being resolved.
func joinRealpath(path, rest string, seen map[string]*string) (string, bool) {
	if strings.HasPrefix(rest, "/") {
		rest = rest[1:]
		path = "/"
	}
	for rest != "" {
		var name string
		name, rest, _ = strings.Cut(rest, "/")
		if name == "" || name == "." {
			continue
		}
		if name == ".." {
			if path == "" {
				path = ".."
				continue
			}
			var last string
			path, last = pySplit(path)
			if last == ".." {
				path = pyJoin(pyJoin(path, ".."), "..")
			}
			continue
		}
		newpath := pyJoin(path, name)
		st, err := os.Lstat(newpath)
		if err != nil || st.Mode()&os.ModeSymlink == 0 {
			path = newpath
			continue
		}
		if res, ok := seen[newpath]; ok {
			if res != nil {
				path = *res
				continue
			}
			return pyJoin(newpath, rest), false
		}
		seen[newpath] = nil
		target, err := os.Readlink(newpath)
		if err != nil {
			path = newpath
			continue
		}
		var ok bool
		path, ok = joinRealpath(path, target, seen)
		if !ok {
			return pyJoin(path, rest), false
		}
		resolved := path
		seen[newpath] = &resolved
	}
	return path, true
}

// pyJoin is posixpath.join(a, b).
func pyJoin(a, b string) string {
	switch {
	case strings.HasPrefix(b, "/"):
		return b
	case a == "" || strings.HasSuffix(a, "/"):
		return a + b
	}
	return a + "/" + b
}

// pySplit is posixpath.split(p).
func pySplit(p string) (head, tail string) {
	i := strings.LastIndex(p, "/") + 1
	head, tail = p[:i], p[i:]
	if head != "" && strings.Trim(head, "/") != "" {
		head = strings.TrimRight(head, "/")
	}
	return head, tail
}
