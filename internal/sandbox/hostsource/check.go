package hostsource

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// hostTarget is a located and inspected host source path.
type hostTarget struct {
	abs        string        // cleaned absolute path
	base       string        // the policy's absolute base dir, for "child" values
	anchor     string        // directory the walk starts from
	comps      []string      // components below anchor, in order
	infos      []os.FileInfo // lstat of each component (same length as comps)
	anchorInfo os.FileInfo   // stat of the anchor
}

// sourceFault is an internal failure with the Python SDK context it should carry;
// the public methods turn it into LocalFileReadError, LocalDirReadError or
// LocalChecksumError.
type sourceFault struct {
	ctx      map[string]any
	cause    error
	checksum bool
}

func (f *sourceFault) Error() string {
	if f.cause != nil {
		return fmt.Sprintf("%v: %v", f.ctx, f.cause)
	}
	return fmt.Sprint(f.ctx)
}

func (f *sourceFault) Unwrap() error { return f.cause }

func fault(reason, child string, cause error) *sourceFault {
	ctx := map[string]any{}
	if reason != "" {
		ctx["reason"] = reason
	}
	if child != "" {
		ctx["child"] = child
	}
	return &sourceFault{ctx: ctx, cause: cause}
}

// testHookBeforeOpen, when set by tests, runs between the lstat walk and the
// pinned open of a source.
var testHookBeforeOpen func(abs string)

// baseDir returns the cleaned absolute base directory.
func (p Policy) baseDir() (string, error) {
	if p.BaseDir == "" {
		return os.Getwd()
	}
	if !filepath.IsAbs(p.BaseDir) {
		return filepath.Abs(p.BaseDir)
	}
	return filepath.Clean(p.BaseDir), nil
}

// within reports whether p equals root or lies below it (both cleaned).
func within(p, root string) bool {
	if root == string(filepath.Separator) {
		return filepath.IsAbs(p)
	}
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}

// locate resolves src and picks the walk anchor: "/" for an absolute src,
// else BaseDir or the grant root it lies under.
func (p Policy) locate(src string) (abs, anchor string, err error) {
	base, err := p.baseDir()
	if err != nil {
		return "", "", fault("", "", fmt.Errorf("cannot determine base directory: %w", err))
	}
	relative := !filepath.IsAbs(src)
	if relative {
		abs = filepath.Join(base, src)
	} else {
		abs = filepath.Clean(src)
	}
	return p.confine(abs, base, relative)
}

// confine checks that abs lies under base or a grant root and returns the
// anchor of its walk.
func (p Policy) confine(abs, base string, relative bool) (string, string, error) {
	pick := func(root string) (string, string, error) {
		if relative {
			return abs, root, nil
		}
		return abs, string(filepath.Separator), nil
	}
	if within(abs, base) {
		return pick(base)
	}
	grants := make([]string, 0, len(p.Grants))
	for _, g := range p.Grants {
		grants = append(grants, g.Path)
		if root := grantRoot(g); root != "" && within(abs, root) {
			return pick(root)
		}
	}
	f := fault(sandbox.ReasonOutsideBaseDir, "", nil)
	f.ctx["base_dir"] = base
	if len(grants) > 0 {
		f.ctx["extra_path_grants"] = grants
	}
	return "", "", f
}

// grantRoot is the effective host root of a grant, resolved as design/sdk-model.md §3.6
// says (ResolveGrantRoot), or "" when the grant is unusable here
// (not absolute on this host, or the filesystem root).
func grantRoot(g posix.PathGrant) string {
	r, err := ResolveGrantRoot(g)
	if err != nil || !filepath.IsAbs(r) {
		return ""
	}
	return filepath.Clean(r)
}

// inspect lstats every component from anchor down to abs (design/sdk-model.md §2.4).
func (p Policy) inspect(abs, anchor string) (*hostTarget, error) {
	base, _ := p.baseDir()
	t := &hostTarget{abs: abs, base: base, anchor: anchor}
	ai, err := os.Stat(anchor)
	if err != nil {
		return nil, lstatFault(err, base, anchor)
	}
	if !ai.IsDir() {
		return nil, fault(sandbox.ReasonPathNotFound, childName(base, anchor), fmt.Errorf("%s is not a directory", anchor))
	}
	t.anchorInfo = ai
	rest, err := filepath.Rel(anchor, abs)
	if err != nil {
		return nil, fault("", "", err)
	}
	if rest == "." {
		return t, nil
	}
	cur := anchor
	for _, name := range strings.Split(rest, string(filepath.Separator)) {
		cur = filepath.Join(cur, name)
		fi, err := os.Lstat(cur)
		if err != nil {
			return nil, lstatFault(err, base, cur)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fault(sandbox.ReasonSymlinkNotSupported, childName(base, cur), nil)
		}
		t.comps = append(t.comps, name)
		t.infos = append(t.infos, fi)
	}
	return t, nil
}

func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// lstatFault reports a failed lstat of abs; a name that does not exist
// carries the nearest existing sibling as "did_you_mean" when one is close.
func lstatFault(err error, base, abs string) *sourceFault {
	child := childName(base, abs)
	if errors.Is(err, fs.ErrNotExist) || isNotDir(err) {
		f := fault(sandbox.ReasonPathNotFound, child, err)
		if near := nearestSibling(abs); near != "" {
			f.ctx["did_you_mean"] = childName(base, near)
		}
		return f
	}
	return fault("", child, err)
}

// child names a host path for a "child" context value: relative to base
// when under it, else absolute.
func childName(base, abs string) string {
	if within(abs, base) {
		if rel, err := filepath.Rel(base, abs); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return abs
}

// leafInfo is the lstat of the target itself (the anchor when it has no
// components).
func (t *hostTarget) leafInfo() os.FileInfo {
	if len(t.infos) == 0 {
		return t.anchorInfo
	}
	return t.infos[len(t.infos)-1]
}

// typeFault reports a source of the wrong file type.
func typeFault(fi os.FileInfo, want string) *sourceFault {
	f := fault("", "", fmt.Errorf("%s is not a %s", fi.Name(), want))
	f.ctx["file_type"] = fileTypeName(fi.Mode())
	return f
}

func fileTypeName(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "regular file"
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// fileError converts an internal failure into the Python SDK's LocalFileReadError
// (or LocalChecksumError).
func (p Policy) fileError(src string, err error) error {
	return convertFault(src, err, sandbox.NewLocalFileReadError)
}

// dirError converts an internal failure into the Python SDK's LocalDirReadError
// (or LocalChecksumError).
func (p Policy) dirError(src string, err error) error {
	return convertFault(src, err, sandbox.NewLocalDirReadError)
}

func convertFault(src string, err error, mk func(string, map[string]any, error) *sandbox.Error) error {
	var se *sandbox.Error
	if errors.As(err, &se) {
		return err
	}
	var f *sourceFault
	if !errors.As(err, &f) {
		return mk(src, nil, err)
	}
	if f.checksum {
		name := src
		if c, ok := f.ctx["child"].(string); ok {
			name = path.Join(filepath.ToSlash(src), c)
		}
		return sandbox.NewLocalChecksumError(name, f.cause)
	}
	return mk(src, f.ctx, f.cause)
}
