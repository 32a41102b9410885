package local

import (
	"errors"
	"fmt"
	"os/user"
	"path"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

// chunkSize is the size in bytes (1 MiB) of the buffer content is streamed
// through; no more than one chunk per stream is held in memory.
const chunkSize = 1 << 20

var chunkPool = sync.Pool{New: func() any { b := make([]byte, chunkSize); return &b }}

// cleanRel checks a workspace-relative POSIX path and returns it cleaned
// ("" becomes "."). Absolute paths and ".." segments that leave the root are
// refused with an error wrapping backend.ErrEscapesRoot.
func cleanRel(op, rel string) (string, error) {
	if rel == "" {
		return ".", nil
	}
	c := path.Clean(rel)
	if path.IsAbs(rel) || c == ".." || strings.HasPrefix(c, "../") {
		return "", escapeErr(op, rel)
	}
	return c, nil
}

// escapeErr is the error for a path whose resolution would follow a symlink
// or leave the root.
func escapeErr(op, rel string) error {
	return fmt.Errorf("%s %s: %w (a symlink in a workspace path is never followed)", op, rel, backend.ErrEscapesRoot)
}

// lookupGid turns a group name into a gid. A name that no group database
// entry has but that is a decimal number is taken as a numeric gid.
func lookupGid(group string) (int, error) {
	return lookupID("group", group, func(n string) (string, error) {
		g, err := user.LookupGroup(n)
		if err != nil {
			return "", err
		}
		return g.Gid, nil
	})
}

// lookupID resolves name, a kind ("user", "group") name, to its numeric id
// with find; a name find does not know that is a decimal number is taken as
// the id itself, and "root" is 0 even on a system with no user database (a
// minimal image without /etc/passwd or /etc/group).
func lookupID(kind, name string, find func(string) (string, error)) (int, error) {
	if name == "" {
		return 0, fmt.Errorf("empty %s name", kind)
	}
	id, err := find(name)
	if err == nil {
		if n, perr := strconv.Atoi(id); perr == nil {
			return n, nil
		}
	}
	if n, perr := strconv.ParseUint(name, 10, 31); perr == nil {
		return int(n), nil
	}
	if name == rootName {
		return 0, nil
	}
	if err == nil {
		err = fmt.Errorf("non-numeric id %q", id)
	}
	return 0, fmt.Errorf("unknown %s %q: %w", kind, name, err)
}

// rootName is the name of uid and gid 0 where the system has no database
// to say so.
const rootName = "root"

// groupName returns the name of gid, or its decimal form when unknown
// ("root" for 0).
func groupName(gid int) string {
	if g, err := user.LookupGroupId(strconv.Itoa(gid)); err == nil {
		return g.Name
	}
	if gid == 0 {
		return rootName
	}
	return strconv.Itoa(gid)
}

func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }
