package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

// LocalDirFiles is how many files a local_dir copy writes at once, the
// seed's SandboxConcurrencyLimits.local_dir_files default (SPEC §4.4).
const LocalDirFiles = 4

// TreeSummary is the workspace-side view of a copied directory: the same
// shape as a host scan, so plan (host) and read (workspace) compare 1:1.
type TreeSummary struct {
	// Files maps the path relative to the entry to its SHA-256 (hex).
	Files map[string]string
	// TotalBytes is the sum of the file sizes.
	TotalBytes int64
	// SHA256 is the tree digest: SHA-256 over sha256sum-style lines
	// "<sha256>  <path>\n" sorted by path, as sandbox.TreeDigest.SHA256.
	SHA256 string
}

// SummarizeTree builds a TreeSummary from a host scan.
func SummarizeTree(t sandbox.TreeDigest) TreeSummary {
	s := TreeSummary{Files: make(map[string]string, len(t.Files)), TotalBytes: t.TotalBytes, SHA256: t.SHA256}
	for _, f := range t.Files {
		s.Files[f.Rel] = f.SHA256
	}
	return s
}

func summarizeWorkspace(files []backend.TreeFile) TreeSummary {
	s := TreeSummary{Files: make(map[string]string, len(files))}
	tree := sandbox.TreeDigest{}
	for _, f := range files {
		if f.SHA256 == "" { // a symlink or other non-file planted in the copy
			s.Files[f.Rel] = ""
			continue
		}
		s.Files[f.Rel] = f.SHA256
		s.TotalBytes += f.Size
		tree.Files = append(tree.Files, sandbox.TreeFile{Rel: f.Rel, Size: f.Size, SHA256: f.SHA256})
	}
	s.SHA256 = sandbox.TreeSHA256(tree.Files)
	return s
}

// ScanLocalDir reads the host directory src (relative to the working
// directory) with the seed's LocalDir rules (SPEC §2.5). It only reads the
// host: plans call it.
func (e *Engine) ScanLocalDir(ctx context.Context, src string) (sandbox.TreeDigest, error) {
	return e.HostSources().ScanDir(ctx, src)
}

// ReadLocalDir lists what is in the copied directory rel of workspace id.
func (e *Engine) ReadLocalDir(ctx context.Context, id, rel string) (EntryState, TreeSummary, error) {
	st, err := e.Stat(ctx, id, rel, false)
	if err != nil || !st.Exists || !st.Info.IsDir {
		return st, TreeSummary{}, err
	}
	w, err := e.Open(ctx, id)
	if err != nil {
		return EntryState{}, TreeSummary{}, err
	}
	files, err := w.Backend.WalkFiles(ctx, rel)
	if err != nil {
		return EntryState{}, TreeSummary{}, err
	}
	return st, summarizeWorkspace(files), nil
}

// SyncLocalDir makes the directory rel of workspace id hold exactly the
// files of the host directory src: missing or changed files are copied
// (their source permission bits kept), files the source does not have are
// removed, unchanged files are not touched. planned is the digest the plan
// showed; if the host tree differs from it now, nothing is written and the
// error says which file changed. The entry's metadata is applied to rel
// itself, as the seed does.
func (e *Engine) SyncLocalDir(ctx context.Context, id, rel, src string, m Meta, planned *TreeSummary) (sandbox.TreeDigest, string, error) {
	w, err := e.Open(ctx, id)
	if err != nil {
		return sandbox.TreeDigest{}, "", err
	}
	host := e.HostSources()
	tree, err := host.ScanDir(ctx, src)
	if err != nil {
		return sandbox.TreeDigest{}, "", err
	}
	if planned != nil && planned.SHA256 != "" && planned.SHA256 != tree.SHA256 {
		return tree, "", fmt.Errorf("host source directory %s changed between plan and apply (%s); run terraform plan again", src, describeChange(planned.Files, SummarizeTree(tree).Files))
	}
	if err := w.Backend.MkdirAll(ctx, rel, m.Perm); err != nil {
		return tree, "", err
	}
	existing := map[string]backend.TreeFile{}
	current, err := w.Backend.WalkFiles(ctx, rel)
	if err != nil && !errors.Is(err, backend.ErrNotExist) {
		return tree, "", err
	}
	for _, f := range current {
		existing[f.Rel] = f
	}
	var todo []sandbox.TreeFile
	wanted := make(map[string]bool, len(tree.Files))
	for _, f := range tree.Files {
		wanted[f.Rel] = true
		cur, ok := existing[f.Rel]
		switch {
		case !ok || cur.SHA256 != f.SHA256:
			todo = append(todo, f)
		case cur.Perm != f.Perm:
			if err := w.Backend.Chmod(ctx, joinRel(rel, f.Rel), f.Perm); err != nil {
				return tree, "", err
			}
		}
	}
	for _, f := range current {
		if !wanted[f.Rel] {
			if err := w.Backend.Remove(ctx, joinRel(rel, f.Rel)); err != nil {
				return tree, "", err
			}
		}
	}
	if err := copyTreeFiles(ctx, w.Backend, host, tree, rel, todo); err != nil {
		return tree, "", err
	}
	if err := applyMeta(ctx, w.Backend, rel, m); err != nil {
		return tree, "", err
	}
	return tree, w.AbsPath(rel), nil
}

// copyTreeFiles copies the files todo of the host tree into rel: as one
// stream when the backend is a backend.BatchWriter (a container), else
// LocalDirFiles files at a time.
func copyTreeFiles(ctx context.Context, b backend.Backend, host sandbox.HostSourcePolicy, tree sandbox.TreeDigest, rel string, todo []sandbox.TreeFile) error {
	if bw, ok := b.(backend.BatchWriter); ok && len(todo) > 0 {
		return copyTreeBatch(ctx, bw, host, tree, rel, todo)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	jobs := make(chan sandbox.TreeFile)
	for i := 0; i < LocalDirFiles; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range jobs {
				if err := copyOne(ctx, b, host, tree, rel, f); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
						cancel()
					}
					mu.Unlock()
				}
			}
		}()
	}
	for _, f := range todo {
		if ctx.Err() != nil {
			break
		}
		jobs <- f
	}
	close(jobs)
	wg.Wait()
	return firstErr
}

func copyOne(ctx context.Context, b backend.Backend, host sandbox.HostSourcePolicy, tree sandbox.TreeDigest, rel string, f sandbox.TreeFile) error {
	src, err := host.OpenTreeFile(ctx, tree, f.Rel)
	if err != nil {
		return err
	}
	defer src.Close()
	_, err = b.WriteFile(ctx, joinRel(rel, f.Rel), src, f.Perm, f.SHA256)
	if errors.Is(err, backend.ErrContentChanged) {
		return fmt.Errorf("host file %s changed while it was being copied; run terraform plan again: %w", path.Join(tree.Root, f.Rel), err)
	}
	return err
}

// copyTreeBatch streams todo to a BatchWriter; each host file is reopened
// by the pinned walk when its turn in the stream comes.
func copyTreeBatch(ctx context.Context, bw backend.BatchWriter, host sandbox.HostSourcePolicy, tree sandbox.TreeDigest, rel string, todo []sandbox.TreeFile) error {
	files := make([]backend.BatchFile, 0, len(todo))
	for _, f := range todo {
		files = append(files, backend.BatchFile{
			Rel: joinRel(rel, f.Rel), Size: f.Size, Perm: f.Perm, SHA256: f.SHA256,
			Open: func(ctx context.Context) (io.ReadCloser, error) { return host.OpenTreeFile(ctx, tree, f.Rel) },
		})
	}
	_, err := bw.WriteFiles(ctx, files)
	if errors.Is(err, backend.ErrContentChanged) {
		return fmt.Errorf("a host file below %s changed while it was being copied; run terraform plan again: %w", tree.Root, err)
	}
	return err
}

// RemoveLocalDir removes the files a local_dir entry wrote (files, relative
// to rel), then the directories left empty, then rel itself when empty.
// Content the resource did not write is left in place, and the returned
// warning names it.
func (e *Engine) RemoveLocalDir(ctx context.Context, id, rel string, files []string) (string, error) {
	w, err := e.Open(ctx, id)
	if errors.Is(err, ErrWorkspaceGone) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	dirs := map[string]bool{}
	for _, f := range files {
		if err := w.Backend.Remove(ctx, joinRel(rel, f)); err != nil {
			return "", err
		}
		for d := path.Dir(f); d != "." && d != "/"; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	ordered := make([]string, 0, len(dirs))
	for d := range dirs {
		ordered = append(ordered, d)
	}
	// Deepest first, so parents are empty by the time they are tried.
	sort.Slice(ordered, func(i, j int) bool {
		ci, cj := strings.Count(ordered[i], "/"), strings.Count(ordered[j], "/")
		if ci != cj {
			return ci > cj
		}
		return ordered[i] > ordered[j]
	})
	for _, d := range ordered {
		_ = w.Backend.Remove(ctx, joinRel(rel, d)) // fails harmlessly when not empty
	}
	return e.RemoveDir(ctx, id, rel)
}

func joinRel(base, rel string) string {
	if base == "." || base == "" {
		return rel
	}
	return path.Join(base, rel)
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
