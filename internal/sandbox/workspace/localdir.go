package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/checksum"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/hostsource"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/progress"
)

// TreeSummary is the workspace-side view of a copied directory: the same
// shape as a host scan, so plan (host) and read (workspace) compare 1:1.
type TreeSummary struct {
	// Files maps the path relative to the entry to its SHA-256 (hex).
	Files map[string]string
	// Modes maps the same paths to their permission bits as 4-digit octal
	// strings ("0644").
	Modes map[string]string
	// TotalBytes is the sum of the file sizes.
	TotalBytes int64
	// SHA256 is the tree digest: SHA-256 over sha256sum-style lines
	// "<sha256>  <path>\n" sorted by path, as checksum.TreeDigest.SHA256.
	SHA256 string
}

// SummarizeTree builds a TreeSummary from a host scan, the modes being the
// source's.
func SummarizeTree(t checksum.TreeDigest) TreeSummary { return SummarizeCopy(t, Meta{}) }

// SummarizeCopy builds the TreeSummary of copying the host scan t with m:
// the modes are the ones the copy gives (Meta.FilePerm, else the source's).
func SummarizeCopy(t checksum.TreeDigest, m Meta) TreeSummary {
	s := TreeSummary{Files: make(map[string]string, len(t.Files)), Modes: make(map[string]string, len(t.Files)), TotalBytes: t.TotalBytes, SHA256: t.SHA256}
	for _, f := range t.Files {
		s.Files[f.Rel] = f.SHA256
		s.Modes[f.Rel] = octal(m.copiedPerm(f.Perm))
	}
	return s
}

func summarizeWorkspace(files []backend.TreeFile) TreeSummary {
	s := TreeSummary{Files: make(map[string]string, len(files)), Modes: make(map[string]string, len(files))}
	tree := checksum.TreeDigest{}
	for _, f := range files {
		s.Modes[f.Rel] = octal(f.Perm)
		if f.SHA256 == "" { // a symlink or other non-file planted in the copy
			s.Files[f.Rel] = ""
			continue
		}
		s.Files[f.Rel] = f.SHA256
		s.TotalBytes += f.Size
		tree.Files = append(tree.Files, checksum.TreeFile{Rel: f.Rel, Size: f.Size, SHA256: f.SHA256})
	}
	s.SHA256 = checksum.TreeSHA256(tree.Files)
	return s
}

func octal(p fs.FileMode) string { return fmt.Sprintf("%04o", uint32(p.Perm())) }

// ScanLocalDir reads the host directory src (relative to the working
// directory) with the Python SDK's LocalDir rules (design/sdk-model.md §2.5), for a copy into
// workspace id ("" when not known yet). It only reads the host: plans call
// it.
func (e *Engine) ScanLocalDir(ctx context.Context, id, src string) (checksum.TreeDigest, error) {
	if err := e.checkSourceDir(id, src); err != nil {
		return checksum.TreeDigest{}, err
	}
	return e.HostSources().ScanDir(ctx, src)
}

// checkSourceDir refuses a source directory that holds the provider's
// local_base_dir, or the root of the local workspace id it is copied into:
// the copy would copy the workspace into itself, growing with every apply.
// Another workspace inside the source is copied as plain files.
func (e *Engine) checkSourceDir(id, src string) error {
	abs, err := e.HostSources().Resolve(src)
	if err != nil {
		return err
	}
	if within(e.cfg.LocalBaseDir, abs) {
		return fmt.Errorf("source %s holds the provider's local_base_dir %s, where workspaces live: copying it would "+
			"copy workspaces into a workspace; choose a directory that does not contain it", src, e.cfg.LocalBaseDir)
	}
	if ref, err := ParseID(id); err == nil && ref.Root != "" && within(ref.Root, abs) {
		return fmt.Errorf("source %s holds the root %s of the workspace it is copied into: the copy would copy the "+
			"workspace into itself; choose a directory that does not contain it", src, ref.Root)
	}
	return nil
}

// TreeState is what Read sees of a copied directory: the directory itself
// and, when it is one, the files below it.
type TreeState struct {
	EntryState
	// Tree summarises the files below the directory (empty when the path
	// is missing or not a directory).
	Tree TreeSummary
}

// ReadTree lists what is in the copied directory rel.
func (w *Workspace) ReadTree(ctx context.Context, rel string) (TreeState, error) {
	st, err := w.Stat(ctx, rel, false)
	if err != nil || !st.Exists || !st.Info.IsDir {
		return TreeState{EntryState: st}, err
	}
	files, err := w.Backend.WalkFiles(ctx, rel)
	if err != nil {
		return TreeState{}, err
	}
	st.OwnerBelow, st.GroupBelow = idsBelow(st.Info, files)
	return TreeState{EntryState: st, Tree: summarizeWorkspace(files)}, nil
}

// idsBelow returns the uid and gid (decimal) of the first files whose owner
// and group differ from the directory dir's, "" when all match.
func idsBelow(dir backend.FileInfo, files []backend.TreeFile) (owner, group string) {
	for _, f := range files {
		if owner == "" && f.Uid != dir.Uid {
			owner = strconv.Itoa(f.Uid)
		}
		if group == "" && f.Gid != dir.Gid {
			group = strconv.Itoa(f.Gid)
		}
	}
	return owner, group
}

// SyncLocalDir makes the directory rel of workspace id hold exactly the
// files of the host directory src: missing or changed files are copied
// (with mode m.FilePerm, or their source bits when it is 0), files the
// source does not have are
// removed, unchanged files are not touched. The entry's permissions are
// applied to rel itself, as the Python SDK does; its owner and group to rel
// and every directory and file below it.
//
// planned is the tree the plan showed. With it, the host tree is walked
// once without hashing and each file that must be copied is streamed and
// checked against its planned SHA-256 on the way; a file edited, added or
// removed since the plan fails the apply with an error naming it (files
// already copied are complete: every write is atomic). Without it (a
// source unknown at plan time), the tree is hashed first.
func (w *Workspace) SyncLocalDir(ctx context.Context, rel, src string, m Meta, planned *TreeSummary) (TreeSummary, error) {
	if err := w.eng.checkSourceDir(w.ID, src); err != nil {
		return TreeSummary{}, err
	}
	return w.syncTree(ctx, rel, w.eng.HostSources(), src, m, planned)
}

// syncHostTree is SyncLocalDir for a host directory the engine itself
// prepared (a Git checkout in a temporary directory): dir is absolute and
// is read by the same no-follow rules, but is not confined to the working
// directory or the grants.
func (w *Workspace) syncHostTree(ctx context.Context, rel, dir string, m Meta) (TreeSummary, error) {
	return w.syncTree(ctx, rel, hostsource.Policy{BaseDir: dir}, ".", m, nil)
}

func (w *Workspace) syncTree(ctx context.Context, rel string, host hostsource.Policy, src string, m Meta, planned *TreeSummary) (TreeSummary, error) {
	if bw, ok := w.Backend.(backend.BatchWriter); ok {
		return syncBatch(ctx, w, bw, host, rel, src, m, planned)
	}
	if planned == nil || planned.SHA256 == "" {
		tree, err := host.ScanDir(ctx, src)
		if err != nil {
			return TreeSummary{}, err
		}
		s := SummarizeCopy(tree, m)
		planned = &s
	}
	if lb, ok := w.Backend.(localBatcher); ok {
		return syncVisitBatch(ctx, w, lb, host, rel, src, m, planned)
	}
	existing, err := prepareTree(ctx, w.Backend, rel, m.Perm, planned.Files)
	if err != nil {
		return TreeSummary{}, err
	}
	vp := newVisitPlan(planned, existing, rel, src, m)
	_, err = host.VisitDir(ctx, src, func(v hostsource.TreeVisit) error {
		dst, perm, want, write, err := vp.check(ctx, w.Backend, v)
		if !write || err != nil {
			return err
		}
		_, err = w.Backend.WriteFile(ctx, dst, v.File, perm, want)
		if errors.Is(err, backend.ErrContentChanged) {
			return fmt.Errorf("%s changed after the plan: %w: %w", v.Rel, ErrSourceChanged, err)
		}
		return err
	})
	if err == nil {
		err = vp.missing()
	}
	if err != nil {
		return TreeSummary{}, err
	}
	if err := applyMetaTree(ctx, w.Backend, rel, m, true); err != nil {
		return TreeSummary{}, err
	}
	return *planned, nil
}

// prepareTree makes the directory rel ready to receive a copy whose files
// are wanted (path relative to rel -> SHA-256): the files there that the
// copy does not have, and symlinks, are removed first with the directories
// left empty (one RemoveTree), so that a path of the copy that changed
// between file and directory is free; then rel is created. It returns the
// files left, by path.
func prepareTree(ctx context.Context, b backend.Backend, rel string, perm fs.FileMode, wanted map[string]string) (map[string]backend.TreeFile, error) {
	current, err := b.WalkFiles(ctx, rel)
	if err != nil && !errors.Is(err, backend.ErrNotExist) {
		return nil, err
	}
	existing := make(map[string]backend.TreeFile, len(current))
	var stale []string
	for _, f := range current {
		if _, ok := wanted[f.Rel]; ok && f.SHA256 != "" {
			existing[f.Rel] = f
		} else {
			stale = append(stale, f.Rel)
		}
	}
	if len(stale) > 0 {
		if _, err := b.RemoveTree(ctx, rel, stale); err != nil {
			return nil, err
		}
	}
	if err := mkdirEntry(ctx, b, rel, perm); err != nil {
		return nil, err
	}
	return existing, nil
}

// RemoveTree removes the files a copied tree wrote (files, relative
// to rel), then the directories left empty, then rel itself when empty, in
// one backend operation (one round trip into a container, whatever the
// number of files). Content the resource did not write is left in place,
// and the returned warning names it.
func (w *Workspace) RemoveTree(ctx context.Context, rel string, files []string) (warning string, err error) {
	rep, err := w.Backend.RemoveTree(ctx, rel, files)
	if err != nil {
		return "", err
	}
	var warnings []string
	if len(rep.Kept) > 0 {
		warnings = append(warnings, fmt.Sprintf("%s: %s became directories written by others, so they were left in place",
			w.AbsPath(rel), strings.Join(rep.Kept, ", ")))
	}
	if rep.Left > 0 {
		warnings = append(warnings, leftInPlace(w.AbsPath(rel), rep.Left))
	}
	return strings.Join(warnings, "; "), nil
}

func joinRel(base, rel string) string {
	if base == "." || base == "" {
		return rel
	}
	return path.Join(base, rel)
}

// syncBatch is SyncLocalDir for a backend.BatchWriter (a container, where
// one stream of many files is far cheaper than a round trip per file): the
// host tree is hashed and compared with the plan first, then the files that
// differ go into the workspace as one stream, each checked against its
// SHA-256 on arrival.
func syncBatch(ctx context.Context, w *Workspace, bw backend.BatchWriter, host hostsource.Policy, rel, src string, m Meta, planned *TreeSummary) (TreeSummary, error) {
	tree, err := host.ScanDir(ctx, src)
	if err != nil {
		return TreeSummary{}, err
	}
	if planned != nil && planned.SHA256 != "" && planned.SHA256 != tree.SHA256 {
		return TreeSummary{}, fmt.Errorf("host source directory %s changed between plan and apply (%s): %w",
			src, describeChange(planned.Files, SummarizeTree(tree).Files), ErrSourceChanged)
	}
	summary := SummarizeCopy(tree, m)
	existing, err := prepareTree(ctx, w.Backend, rel, m.Perm, summary.Files)
	if err != nil {
		return TreeSummary{}, err
	}
	prog := progress.Start(ctx, "copy", src, int64(len(tree.Files)), summary.TotalBytes)
	var todo []checksum.TreeFile
	for _, f := range tree.Files {
		cur, ok := existing[f.Rel]
		f.Perm = m.copiedPerm(f.Perm)
		if ok && cur.SHA256 == f.SHA256 {
			prog.Add(1, f.Size) // already there
		}
		switch {
		case !ok || cur.SHA256 != f.SHA256:
			todo = append(todo, f)
		case cur.Perm != f.Perm:
			if err := w.Backend.Chmod(ctx, joinRel(rel, f.Rel), f.Perm); err != nil {
				return TreeSummary{}, err
			}
		}
	}
	if len(todo) > 0 {
		if err := copyTreeBatch(ctx, bw, host, tree, rel, todo, prog); err != nil {
			return TreeSummary{}, err
		}
	}
	if err := applyMetaTree(ctx, w.Backend, rel, m, true); err != nil {
		return TreeSummary{}, err
	}
	prog.Finish(true)
	return summary, nil
}

// describeChange names up to three paths that differ between two trees.
func describeChange(before, after map[string]string) string {
	var diffs []string
	for p, sum := range after {
		if old, ok := before[p]; !ok {
			diffs = append(diffs, "added "+p)
		} else if old != sum {
			diffs = append(diffs, "changed "+p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			diffs = append(diffs, "removed "+p)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 3 {
		diffs = append(diffs[:3], fmt.Sprintf("and %d more", len(diffs)-3))
	}
	if len(diffs) == 0 {
		return "contents differ"
	}
	return strings.Join(diffs, ", ")
}

// ErrOccupied is wrapped when a new copy's directory already holds files.
var ErrOccupied = errors.New("the path already holds files")

// CheckFreshTree refuses to start a new copy (sandbox_local_dir,
// sandbox_git_repo) at rel when rel already holds files: a copy makes its
// directory hold exactly its source, so they would be deleted or
// overwritten, and the provider never removes what it did not write to make
// room. A missing or empty directory passes. It only reads.
func (w *Workspace) CheckFreshTree(ctx context.Context, rel string) error {
	files, err := w.Backend.WalkFiles(ctx, rel)
	if errors.Is(err, backend.ErrNotExist) || (err == nil && len(files) == 0) {
		return nil
	}
	if err != nil {
		return err
	}
	names := make([]string, 0, 3)
	for _, f := range files[:min(3, len(files))] {
		names = append(names, f.Rel)
	}
	more := ""
	if len(files) > len(names) {
		more = ", ..."
	}
	return fmt.Errorf("%w: %s already holds %d file(s) this resource did not write (%s%s); a copy makes its directory "+
		"hold exactly its source, so they would be deleted or overwritten: move them away, or choose another path",
		ErrOccupied, w.AbsPath(rel), len(files), strings.Join(names, ", "), more)
}
