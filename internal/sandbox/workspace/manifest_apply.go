package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// ApplyManifest materialises the plan's entries in workspace id in walk
// order, as the Python SDK's manifest application does (design/sdk-model.md §2, §4): a dir is
// created (mkdir -p) and its metadata applied before its children; a file
// is written atomically; a local_file source is copied and checked against
// the SHA-256 taken at plan time; a local_dir source is synchronised
// (SyncLocalDir) against the planned tree, or only created when it has no
// src. Metadata (chgrp, then chmod) follows each entry. It returns what was
// applied (ManifestPlan.Expected). A host source changed since the plan
// fails the apply naming it; entries applied before stay (every write is
// atomic).
func (e *Engine) ApplyManifest(ctx context.Context, id string, p *ManifestPlan) (ManifestResult, error) {
	for _, pe := range p.Entries {
		if err := e.applyEntry(ctx, id, pe); err != nil {
			return ManifestResult{}, fmt.Errorf("entry %q (%s): %w", pe.Path, pe.Entry.Type, err)
		}
	}
	return p.Expected(), nil
}

func (e *Engine) applyEntry(ctx context.Context, id string, pe PlannedEntry) error {
	meta := pe.Meta()
	switch pe.Entry.Type {
	case "dir":
		_, err := e.ApplyDir(ctx, id, pe.Path, meta)
		return err
	case "file":
		content, _ := pe.Entry.StringField("content")
		_, _, err := e.WriteFile(ctx, id, pe.Path, bytes.NewReader([]byte(content)), meta, pe.SHA256)
		return err
	case "local_file":
		_, _, err := e.CopyHostFile(ctx, id, pe.Path, pe.Source(), meta, pe.SHA256)
		return err
	case "local_dir":
		if pe.Source() == "" {
			_, err := e.ApplyDir(ctx, id, pe.Path, meta)
			return err
		}
		_, _, err := e.SyncLocalDir(ctx, id, pe.Path, pe.Source(), meta, pe.Tree)
		return err
	}
	return &UnsupportedEntryError{Path: pe.Path, Type: pe.Entry.Type}
}

// ReadManifest observes the plan's entries in workspace id, reading only
// the workspace (never the host): each entry's mode, group and, for files,
// the SHA-256 of what is there; for local_dir copies, every file below
// them. A missing entry has empty Permissions; a file that is not a
// regular file (or a dir that is not a directory) has an empty SHA256 and
// Permissions. Compared with ManifestPlan.Expected, any difference is
// drift. A vanished workspace gives an error wrapping ErrWorkspaceGone.
func (e *Engine) ReadManifest(ctx context.Context, id string, p *ManifestPlan) (ManifestResult, error) {
	if _, err := e.Open(ctx, id); err != nil {
		return ManifestResult{}, err
	}
	r := ManifestResult{Entries: map[string]EntryResult{}, Files: map[string]string{}}
	for _, pe := range p.Entries {
		res := EntryResult{Type: pe.Entry.Type}
		isFile := pe.Entry.Type == "file" || pe.Entry.Type == "local_file"
		st, err := e.Stat(ctx, id, pe.Path, isFile)
		if err != nil {
			return ManifestResult{}, err
		}
		if st.Exists && st.Info.IsRegular == isFile && st.Info.IsDir == !isFile {
			res.Permissions = sandbox.PermissionsFromMode(uint32(st.Info.Perm)).ChmodArg()
			if pe.Entry.Group != nil {
				res.Group = st.Info.Group
			}
		}
		switch {
		case isFile && res.Permissions != "":
			res.SHA256 = st.SHA256
			r.Files[pe.Path] = st.SHA256
		case pe.Entry.Type == "local_dir" && pe.Source() != "" && res.Permissions != "":
			_, tree, err := e.ReadLocalDir(ctx, id, pe.Path)
			if err != nil {
				return ManifestResult{}, err
			}
			res.SHA256 = tree.SHA256
			for rel, sum := range tree.Files {
				r.Files[joinRel(pe.Path, rel)] = sum
			}
		}
		r.Entries[pe.Path] = res
	}
	return r, nil
}

// RemoveManifest undoes a manifest in workspace id, removing only what it
// wrote: the files listed in files (workspace-relative paths), then, in
// reverse walk order, every directory the entries created, each only when
// empty. Directories holding content the manifest did not write are left
// in place; the returned warnings name them. A vanished workspace is not
// an error.
func (e *Engine) RemoveManifest(ctx context.Context, id string, entries []PlannedEntry, files []string) ([]string, error) {
	w, err := e.Open(ctx, id)
	if errors.Is(err, ErrWorkspaceGone) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	copies, rest := filesByCopy(entries, files)
	for c, list := range copies {
		// One round trip per copy, whatever its size; what it leaves is
		// reported by the directory pass below.
		if _, err := w.Backend.RemoveTree(ctx, c, list); err != nil {
			return nil, err
		}
	}
	for _, f := range rest {
		if err := e.RemoveFile(ctx, id, f); err != nil {
			return nil, err
		}
	}
	var dirs []string
	for _, pe := range entries {
		if pe.Entry.Type == "dir" || pe.Entry.Type == "local_dir" {
			dirs = append(dirs, pe.Path)
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
	var warnings []string
	done := map[string]bool{}
	for _, d := range dirs {
		if done[d] {
			continue
		}
		done[d] = true
		w, err := e.RemoveDir(ctx, id, d)
		if err != nil {
			return warnings, err
		}
		if w != "" && isEntryPath(entries, d) {
			warnings = append(warnings, w)
		}
	}
	return warnings, nil
}

// filesByCopy splits the files of a manifest into those of each local_dir
// copy (by the copy's path, relative to it) and the rest.
func filesByCopy(entries []PlannedEntry, files []string) (map[string][]string, []string) {
	var paths []string
	for _, pe := range entries {
		if pe.Entry.Type == "local_dir" && pe.Source() != "" {
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
