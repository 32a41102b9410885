package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// within reports whether p is root or below it (both absolute and clean).
func within(p, root string) bool {
	if root == "/" {
		return true
	}
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}

// CheckLocalRoot refuses a local workspace root whose destruction could
// lose data that is not the workspace's own: the filesystem root, a
// directory holding Terraform's working directory or the provider's
// local_base_dir, and a directory inside another workspace (any ancestor
// carrying a workspace marker, whichever configuration created it). It only
// reads: plans call it.
func (e *Engine) CheckLocalRoot(root string) error {
	if !filepath.IsAbs(root) {
		return fmt.Errorf("workspace root %q must be an absolute path", root)
	}
	root = filepath.Clean(root)
	switch {
	case root == "/" || resolveExisting(root) == "/":
		return errors.New("the filesystem root cannot be a workspace root")
	case within(e.cfg.WorkingDir, root):
		return fmt.Errorf("workspace root %s holds Terraform's working directory %s; destroying the workspace would delete it", root, e.cfg.WorkingDir)
	case within(e.cfg.LocalBaseDir, root):
		return fmt.Errorf("workspace root %s holds the provider's local_base_dir %s, where workspaces are created", root, e.cfg.LocalBaseDir)
	}
	for dir := filepath.Dir(root); ; dir = filepath.Dir(dir) {
		if m, err := readLocalMarker(dir); err == nil {
			return fmt.Errorf("workspace root %s is inside workspace %s at %s; workspaces must not share directories", root, m.ID, dir)
		}
		if dir == "/" {
			return nil
		}
	}
}

// CheckNewLocalRoot is CheckLocalRoot for a workspace about to be created
// in root, plus the refusal of a non-empty existing directory, so nothing
// already there can be lost. It only reads.
func (e *Engine) CheckNewLocalRoot(root string) error {
	if err := e.CheckLocalRoot(root); err != nil {
		return err
	}
	if err := e.checkRootSymlinks(filepath.Clean(root)); err != nil {
		return err
	}
	if m, err := readLocalMarker(root); err == nil {
		return fmt.Errorf("directory %s already is workspace %s: %w", root, m.ID, ErrAlreadyWorkspace)
	}
	fi, err := os.Lstat(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("workspace root %s exists and is not a directory", root)
	}
	d, err := os.Open(root)
	if err != nil {
		return err
	}
	defer d.Close()
	if _, err := d.Readdirnames(1); !errors.Is(err, io.EOF) {
		if err != nil {
			return err
		}
		return fmt.Errorf("refusing to create a workspace in non-empty directory %s: nothing already there may be lost; choose an empty or missing directory", root)
	}
	return nil
}

// checkRootSymlinks refuses a new root that is, or lies below, a symlink:
// the directory it names could then be anywhere, and be moved elsewhere
// by whoever can change the link. As for host sources (symlink_not_supported),
// every existing component counts, except the provider's local_base_dir and
// its parents, which the provider's configuration chose (a system whose
// /tmp is a link keeps default roots working). Write the resolved path.
func (e *Engine) checkRootSymlinks(root string) error {
	parts := strings.Split(strings.TrimPrefix(root, "/"), "/")
	cur := "/"
	for _, part := range parts {
		cur = filepath.Join(cur, part)
		if e.cfg.LocalBaseDir != "" && within(filepath.Clean(e.cfg.LocalBaseDir), cur) {
			continue
		}
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // created by the apply, as a directory
		}
		if err != nil {
			return fmt.Errorf("workspace root %s: %w", root, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(cur)
			return fmt.Errorf("symlink_not_supported: workspace root %s lies below the symlink %s (to %q); a root is never "+
				"reached through a symlink: write the resolved path, such as %s", root, cur, target, resolveExisting(root))
		}
	}
	return nil
}

// CheckLocalBaseDir refuses a local_base_dir that is, through symlinks, the
// filesystem root (whose entries a workspace directory would sit among).
// It only reads.
func CheckLocalBaseDir(base string) error {
	if real := resolveExisting(filepath.Clean(base)); real == "/" {
		return fmt.Errorf("local_base_dir %s is the filesystem root (through a symlink); choose a directory of its own", base)
	}
	return nil
}

// resolveExisting resolves the symlinks of the longest existing leading
// part of p and joins the rest on.
func resolveExisting(p string) string {
	rest := ""
	for cur := p; ; cur = filepath.Dir(cur) {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(cur) == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
	}
}
