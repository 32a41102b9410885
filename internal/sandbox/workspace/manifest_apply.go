package workspace

import (
	"bytes"
	"context"
	"sort"
	"strconv"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// ApplyManifest materialises the plan's entries in the workspace in walk
// order, as the Python SDK's manifest application does (design/sdk-model.md §2, §4): a dir is
// created (mkdir -p) and its metadata applied before its children; a file
// is written atomically; a local_file source is copied and checked against
// the SHA-256 taken at plan time; a local_dir source is synchronised
// (SyncLocalDir) against the planned tree, or only created when it has no
// src; a git_repo is fetched on the host and synchronised like a local_dir
// (SyncGitRepo), its commit and tree recorded in the plan. Metadata (chgrp,
// then chmod) follows each entry; mount entries are mounted last
// (applyMounts), after a check that the workspace can take them. It returns what was
// applied (ManifestPlan.Expected). A host source changed since the plan
// fails the apply naming it; entries applied before stay (every write is
// atomic) until UndoManifest removes them.
func (w *Workspace) ApplyManifest(ctx context.Context, p *ManifestPlan) (ManifestResult, error) {
	p.progress = applyProgress{}
	for _, pe := range p.Entries {
		if pe.Mount == nil {
			continue
		}
		// A workspace that cannot take a mount (no FUSE grant) fails
		// before anything is written.
		if _, err := w.eng.CheckMountWorkspace(ctx, w.ID, pe.Mount); err != nil {
			return ManifestResult{}, &EntryError{Path: pe.Path, Type: pe.Entry.Type, Err: err}
		}
	}
	for i := range p.Entries {
		if p.Entries[i].Mount != nil {
			continue // mounted below, once the directories they sit in exist
		}
		p.progress.started(i)
		if err := w.applyEntry(ctx, &p.Entries[i]); err != nil {
			return ManifestResult{}, &EntryError{Path: p.Entries[i].Path, Type: p.Entries[i].Entry.Type, Err: err}
		}
		p.progress.completed(i)
	}
	if err := w.applyMounts(ctx, p); err != nil {
		return ManifestResult{}, err
	}
	return p.Expected(), nil
}

func (w *Workspace) applyEntry(ctx context.Context, pe *PlannedEntry) error {
	meta := pe.Meta()
	switch pe.Entry.Type {
	case "git_repo":
		return w.applyGit(ctx, pe)
	case "dir":
		return w.ApplyDir(ctx, pe.Path, meta)
	case "file":
		content, _ := pe.Entry.StringField("content")
		_, err := w.WriteFile(ctx, pe.Path, bytes.NewReader([]byte(content)), meta, pe.SHA256)
		return err
	case "local_file":
		_, err := w.CopyHostFile(ctx, pe.Path, pe.Source(), meta, pe.SHA256)
		return err
	case "local_dir":
		if pe.Source() == "" {
			return w.ApplyDir(ctx, pe.Path, meta)
		}
		_, err := w.SyncLocalDir(ctx, pe.Path, pe.Source(), meta, pe.Tree)
		return err
	}
	return &UnsupportedEntryError{Path: pe.Path, Type: pe.Entry.Type}
}

// ReadManifest observes the plan's entries in the workspace, reading only
// the workspace (never the host): each entry's mode, group and, for files,
// the SHA-256 of what is there; for local_dir copies, every file below
// them. A missing entry has empty Permissions; a file that is not a
// regular file (or a dir that is not a directory) has an empty SHA256 and
// Permissions. Compared with ManifestPlan.Expected, any difference is
// drift.
func (w *Workspace) ReadManifest(ctx context.Context, p *ManifestPlan) (ManifestResult, error) {
	r := ManifestResult{Entries: map[string]EntryResult{}, Files: map[string]string{}}
	for _, pe := range p.Entries {
		if pe.Mount != nil {
			res, err := w.readMount(ctx, pe)
			if err != nil {
				return ManifestResult{}, err
			}
			r.Entries[pe.Path] = res
			continue
		}
		res := EntryResult{Type: pe.Entry.Type}
		isFile := pe.Entry.Type == "file" || pe.Entry.Type == "local_file"
		st, err := w.Stat(ctx, pe.Path, isFile)
		if err != nil {
			return ManifestResult{}, err
		}
		if st.Exists && st.Info.IsRegular == isFile && st.Info.IsDir == !isFile {
			res.Permissions = posix.PermissionsFromMode(uint32(st.Info.Perm)).ChmodArg()
			if g := pe.Entry.Group; g != nil {
				res.Group = st.Info.Group
				if g.Name == strconv.Itoa(st.Info.Gid) { // a numeric gid reads back as itself
					res.Group = g.Name
				}
			}
		}
		switch {
		case isFile && res.Permissions != "":
			res.SHA256 = st.SHA256
			r.Files[pe.Path] = st.SHA256
		case pe.CopiesTree() && res.Permissions != "":
			ts, err := w.ReadTree(ctx, pe.Path)
			if err != nil {
				return ManifestResult{}, err
			}
			res.SHA256 = ts.Tree.SHA256
			for rel, sum := range ts.Tree.Files {
				r.Files[joinRel(pe.Path, rel)] = sum
			}
		}
		r.Entries[pe.Path] = res
	}
	return r, nil
}

// RemoveManifest undoes a manifest in the workspace (its mounts unmounted
// first with UnmountManifest), removing only what it wrote: the files listed in files (workspace-relative paths), then, in
// reverse walk order, every directory the entries created, each only when
// empty. Directories holding content the manifest did not write are left
// in place; the returned warnings name them.
func (w *Workspace) RemoveManifest(ctx context.Context, entries []PlannedEntry, files []string) (warnings []string, err error) {
	copies, rest := filesByCopy(entries, files)
	for c, list := range copies {
		// One round trip per copy, whatever its size; what it leaves is
		// reported by the directory pass below.
		if _, err := w.Backend.RemoveTree(ctx, c, list); err != nil {
			return nil, err
		}
	}
	for _, f := range rest {
		if err := w.RemoveFile(ctx, f); err != nil {
			return nil, err
		}
	}
	var dirs []string
	for _, pe := range entries {
		if t := pe.Entry.Type; t == "dir" || t == "local_dir" || t == "git_repo" || (pe.Mount != nil && pe.Mount.MountPath == nil) {
			dirs = append(dirs, pe.Path) // a mount point, once unmounted (UnmountManifest), is an empty directory
		}
	}
	for _, f := range rest {
		for _, d := range dirs {
			for p := parentDir(f); p != "." && strings.HasPrefix(p+"/", d+"/") && p != d; p = parentDir(p) {
				dirs = append(dirs, p) // directories a local_dir copy created
			}
		}
	}
	sort.Slice(dirs, func(i, j int) bool { // deepest first
		ci, cj := strings.Count(dirs[i], "/"), strings.Count(dirs[j], "/")
		if ci != cj {
			return ci > cj
		}
		return dirs[i] > dirs[j]
	})
	done := map[string]bool{}
	for _, d := range dirs {
		if done[d] {
			continue
		}
		done[d] = true
		warning, err := w.RemoveDir(ctx, d)
		if err != nil {
			return warnings, err
		}
		if warning != "" && isEntryPath(entries, d) {
			warnings = append(warnings, warning)
		}
	}
	return warnings, nil
}

// filesByCopy splits the files of a manifest into those of each local_dir
// copy (by the copy's path, relative to it) and the rest.
func filesByCopy(entries []PlannedEntry, files []string) (map[string][]string, []string) {
	var paths []string
	for _, pe := range entries {
		if pe.CopiesTree() {
			paths = append(paths, pe.Path)
		}
	}
	copies := map[string][]string{}
	var rest []string
next:
	for _, f := range files {
		for _, c := range paths {
			if c == "." || strings.HasPrefix(f, c+"/") {
				copies[c] = append(copies[c], strings.TrimPrefix(f, c+"/"))
				continue next
			}
		}
		rest = append(rest, f)
	}
	return copies, rest
}

func isEntryPath(entries []PlannedEntry, p string) bool {
	for _, pe := range entries {
		if pe.Path == p {
			return true
		}
	}
	return false
}

func parentDir(p string) string {
	i := strings.LastIndex(p, "/")
	if i < 0 {
		return "."
	}
	return p[:i]
}
