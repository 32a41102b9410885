package sandbox

import (
	"os"
	"strings"
)

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
	return NormPosix(out)
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
