package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Checkout is a commit's tree (or the subpath of it) written to a
// temporary host directory. Close removes it.
type Checkout struct {
	// Dir is the absolute host directory holding the checked-out files.
	Dir string
	// Commit is the 40-hex commit checked out.
	Commit string
	tmp    string
}

// Close removes the temporary directory.
func (c *Checkout) Close() error { return removeAll(c.tmp) }

const wantRef = "refs/sandbox/want"

// Fetch fetches ref from s into a temporary directory and writes the tree
// below subpath ("" for the root) of the commit there. want, when not "",
// is the commit the plan resolved ref to: a branch or tag that moved since
// fails with ErrMoved. Named refs and full commits are fetched shallow
// (depth 1); an abbreviated commit, or a full one the server will not serve
// by id, falls back to a full fetch.
//
// Git stores no owner or mode beyond "executable": files are written 0644
// or 0755, directories 0755. Symlinks are refused (those pointing outside
// the checkout are named as such): a copy never follows or recreates a
// link, as sandbox_local_dir. Submodules are left out (the Python SDK's clone
// does not recurse into them either).
func Fetch(ctx context.Context, s Source, ref, want, subpath string) (*Checkout, error) {
	auth, err := s.auth()
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "sandbox-git-")
	if err != nil {
		return nil, err
	}
	co := &Checkout{tmp: tmp, Dir: filepath.Join(tmp, "tree")}
	ok := false
	defer func() {
		if !ok {
			_ = co.Close()
		}
	}()
	repo, err := git.PlainInit(filepath.Join(tmp, "git"), true)
	if err != nil {
		return nil, err
	}
	if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{s.URL}}); err != nil {
		return nil, err
	}
	fetch := func(depth int, specs ...string) error {
		rs := make([]config.RefSpec, 0, len(specs))
		for _, sp := range specs {
			rs = append(rs, config.RefSpec(sp))
		}
		err := repo.FetchContext(ctx, &git.FetchOptions{RemoteName: "origin", RefSpecs: rs, Depth: depth, Auth: auth, Tags: git.NoTags, Force: true})
		if errors.Is(err, git.NoErrAlreadyUpToDate) {
			return nil
		}
		return err
	}
	var hash plumbing.Hash
	if LooksLikeCommitRef(ref) {
		full := strings.ToLower(ref)
		if len(full) != 40 || fetch(1, full+":"+wantRef) != nil {
			if err := fetch(0, "+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"); err != nil {
				return nil, s.scrub(err, "fetching")
			}
		}
		h, err := repo.ResolveRevision(plumbing.Revision(full))
		if err != nil {
			return nil, fmt.Errorf("no commit %q in %s: %w", ref, Redact(s.URL), ErrUnknownRef)
		}
		hash = *h
	} else {
		var ferr error
		for _, name := range []string{"refs/heads/" + ref, "refs/tags/" + ref, ref} {
			if !strings.HasPrefix(name, "refs/") {
				continue
			}
			if ferr = fetch(1, "+"+name+":"+wantRef); ferr == nil {
				break
			}
			var nm git.NoMatchingRefSpecError
			if !errors.As(ferr, &nm) {
				return nil, s.scrub(ferr, "fetching")
			}
		}
		if ferr != nil {
			return nil, fmt.Errorf("no branch or tag %q in %s: %w", ref, Redact(s.URL), ErrUnknownRef)
		}
		r, err := repo.Reference(wantRef, true)
		if err != nil {
			return nil, err
		}
		hash = r.Hash()
		if tag, err := repo.TagObject(hash); err == nil {
			c, err := tag.Commit()
			if err != nil {
				return nil, fmt.Errorf("tag %q in %s does not point to a commit: %w", ref, Redact(s.URL), ErrUnknownRef)
			}
			hash = c.Hash
		}
	}
	co.Commit = hash.String()
	if want != "" && want != co.Commit {
		return nil, fmt.Errorf("%q in %s is now commit %s, not %s as planned: %w", ref, Redact(s.URL), co.Commit, want, ErrMoved)
	}
	commit, err := repo.CommitObject(hash)
	if err != nil {
		return nil, fmt.Errorf("commit %s of %s: %w", co.Commit, Redact(s.URL), ErrUnknownRef)
	}
	tree, err := commit.Tree()
	if err != nil {
		return nil, err
	}
	if subpath != "" {
		if tree, err = tree.Tree(subpath); err != nil {
			return nil, fmt.Errorf("subpath %q is not a directory in commit %s of %s: %w", subpath, co.Commit, Redact(s.URL), ErrSubpathMissing)
		}
	}
	if err := writeTree(tree, co.Dir, subpath); err != nil {
		return nil, err
	}
	ok = true
	return co, nil
}

// writeTree writes the files of tree below dir.
func writeTree(tree *object.Tree, dir, subpath string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	walker := object.NewTreeWalker(tree, true, nil)
	defer walker.Close()
	for {
		name, entry, err := walker.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(name))
		switch entry.Mode {
		case filemode.Dir:
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return err
			}
		case filemode.Submodule:
			continue
		case filemode.Symlink:
			return symlinkError(tree, name, subpath)
		case filemode.Regular, filemode.Executable, filemode.Deprecated:
			if err := writeBlob(tree, name, entry, dst); err != nil {
				return err
			}
		}
	}
}

func writeBlob(tree *object.Tree, name string, entry object.TreeEntry, dst string) error {
	f, err := tree.TreeEntryFile(&entry)
	if err != nil {
		// A tree walked by name: look the file up by its path instead.
		if f, err = tree.File(name); err != nil {
			return err
		}
	}
	r, err := f.Reader()
	if err != nil {
		return err
	}
	defer func() { _ = r.Close() }()
	perm := os.FileMode(0o644)
	if entry.Mode == filemode.Executable {
		perm = 0o755
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		_ = out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(dst, perm) // whatever the umask
}

func symlinkError(tree *object.Tree, name, subpath string) error {
	rel := path.Join(subpath, name)
	target := ""
	if f, err := tree.File(name); err == nil {
		target, _ = f.Contents()
	}
	where := "inside"
	joined := path.Join(path.Dir(rel), target)
	if path.IsAbs(target) || joined == ".." || strings.HasPrefix(joined, "../") {
		where = "outside"
	}
	return fmt.Errorf("the repository holds a symlink %s -> %s pointing %s the checkout; symlinks are not supported (none is followed or copied)", rel, target, where)
}
