package workspace

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/checksum"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

// ManifestEntryTypes are the entry types ApplyManifest materialises, sorted.
var ManifestEntryTypes = []string{"azure_blob_mount", "box_mount", "dir", "file", "gcs_mount", "git_repo", "local_dir",
	"local_file", "r2_mount", "s3_files_mount", "s3_mount"}

// UnsupportedEntryError is a manifest entry whose type the provider does not
// apply from a manifest (yet).
type UnsupportedEntryError struct {
	Path, Type string
}

// Error names the entry, its type and the types that are applied.
func (e *UnsupportedEntryError) Error() string {
	return fmt.Sprintf("entry %q has type `%s`, which sandbox_manifest does not apply yet: declare it with the "+
		"resource sandbox_%s (its credentials are write-only attributes there). sandbox_manifest applies: %s",
		e.Path, e.Type, e.Type, strings.Join(ManifestEntryTypes, ", "))
}

// PlannedEntry is one manifest entry, at its validated workspace-relative
// path, with what applying it will produce.
type PlannedEntry struct {
	Path  string
	Entry *manifest.Entry
	// SHA256 is the content digest of a file or local_file, or the tree
	// digest of a local_dir with a src; "" for the others.
	SHA256 string
	// Tree is the host tree of a local_dir with a src, or the checkout of a
	// git_repo once known (nil otherwise).
	Tree *TreeSummary
	// Git is a git_repo entry's remote, ref and planned commit (nil for
	// other types and before PlanManifestFrom).
	Git *GitRepo
	// Mount is a mount entry's mount, with its credentials once planned
	// (nil for other types).
	Mount *mount.Mount
	// MountEntry is a mount entry's JSON (no authority in it); MountSession
	// the session it is mounted with ("" until mounted), MountRemote the
	// rclone remote its apply generated, MountVersion the credentials
	// version it is planned with.
	MountEntry, MountSession, MountRemote, MountVersion string
}

// CopiesTree reports whether the entry makes a directory holding exactly
// a copied tree: a local_dir with a src, or a git_repo.
func (p PlannedEntry) CopiesTree() bool {
	return p.Entry.Type == "git_repo" || (p.Entry.Type == "local_dir" && p.Source() != "")
}

// Pending reports whether the entry's tree is known only after the apply
// fetches it (a git_repo whose commit or subpath changed).
func (p PlannedEntry) Pending() bool { return p.Entry.Type == "git_repo" && p.Tree == nil }

// Meta returns the metadata the Python SDK applies after materialising the
// entry: chgrp to its group (when set), then chmod to its permission bits;
// the files a local_dir copies are written SDKCopiedFilePerm, as the Python
// SDK writes them; a git_repo's files keep the modes Git records.
func (p PlannedEntry) Meta() Meta {
	m := Meta{Perm: p.Entry.Permissions.Perm()}
	if p.Entry.Type == "local_dir" {
		m.FilePerm = SDKCopiedFilePerm
	}
	if p.Entry.Group != nil {
		m.Group = p.Entry.Group.Name
	}
	return m
}

// Source returns the host source of a local_file or local_dir ("" when
// none).
func (p PlannedEntry) Source() string {
	s, _ := p.Entry.StringField("src")
	return s
}

// ManifestPlan is a checked manifest: its entries in the Python SDK's walk order
// (depth-first, parents before children).
type ManifestPlan struct {
	Entries []PlannedEntry
	// MountPrior is what the last apply mounted, by entry path.
	MountPrior map[string]MountApplied

	// progress is what ApplyManifest did (manifest_undo.go).
	progress applyProgress
}

// CheckManifest validates a manifest without touching the host or a
// workspace: every entry path, nested Dir children included, with the
// Python SDK's rules and messages and the filesystem's limits
// (manifest.Entries.CheckedEntries); entry types
// this provider applies (UnsupportedEntryError otherwise); no path given
// twice; no file or local_file at the workspace root; no entry inside a
// local_dir copy (the copy would remove it). The plan it returns carries no
// digests; see PlanManifest.
func CheckManifest(m *manifest.Manifest) (*ManifestPlan, error) {
	list, err := m.Entries.CheckedEntries()
	if err != nil {
		return nil, err
	}
	plan := &ManifestPlan{}
	seen := map[string]bool{}
	copies := map[string]string{} // path → type of the entries that copy a tree
	for _, ep := range list {
		t := ep.Entry.Type
		if !contains(ManifestEntryTypes, t) {
			return nil, &UnsupportedEntryError{Path: ep.Path, Type: t}
		}
		if seen[ep.Path] {
			return nil, fmt.Errorf("entry path %q is given twice (the Python SDK would apply both, the second overwriting the first); keep one", ep.Path)
		}
		seen[ep.Path] = true
		if p := ep.Entry.Permissions; p.Owner < 0 || p.Owner > 7 || p.Group < 0 || p.Group > 7 || p.Other < 0 || p.Other > 7 {
			return nil, fmt.Errorf("entry %q has permissions owner=%d group=%d other=%d: each must be 0 to 7 (the Python SDK shifts "+
				"larger values into setuid/setgid/sticky and file-type bits, which this provider never sets)", ep.Path, p.Owner, p.Group, p.Other)
		}
		if _, ok := ep.Entry.StringField("src"); (ok && t == "local_dir") || t == "git_repo" {
			copies[ep.Path] = t
		}
		if t == "git_repo" {
			if err := checkGitEntry(ep.Path, ep.Entry); err != nil {
				return nil, err
			}
		}
		pe := PlannedEntry{Path: ep.Path, Entry: ep.Entry}
		if manifest.IsMountEntryType(t) {
			if pe.Mount, err = checkMountEntry(ep.Path, ep.Entry); err != nil {
				return nil, err
			}
		}
		plan.Entries = append(plan.Entries, pe)
	}
	if err := checkPlannedEntries(plan.Entries); err != nil {
		return nil, err
	}
	if err := checkFileKeys(m.Entries); err != nil {
		return nil, err
	}
	if err := checkInsideMounts(plan.Entries); err != nil {
		return nil, err
	}
	for _, c := range slices.Sorted(maps.Keys(copies)) {
		for _, pe := range plan.Entries {
			if pe.Path != c && (c == "." || strings.HasPrefix(pe.Path, c+"/")) {
				return nil, fmt.Errorf("entry %q lies inside %s entry %q, whose copy holds exactly its source's files; "+
					"put it in the source or elsewhere", pe.Path, copies[c], c)
			}
		}
	}
	return plan, nil
}

// PlanManifest is CheckManifest plus what applying will produce, read from
// the host now (plan time): the SHA-256 of every file's content, of every
// local_file source and the tree of every local_dir source, confined and
// read with the Python SDK's LocalFile/LocalDir rules against the provider's
// working directory and extra_path_grants (HostSources). The manifest's own
// extra_path_grants do not widen what may be read.
func (e *Engine) PlanManifest(ctx context.Context, m *manifest.Manifest) (*ManifestPlan, error) {
	return e.PlanManifestFrom(ctx, m, ManifestInputs{})
}

// PlanManifestFrom is PlanManifest with the inputs git_repo entries need:
// each one's ref is resolved against its remote (no fetch), so its commit is
// known at plan time; its tree is known when in.GitApplied holds the
// checkout of the same commit, else after the apply (PlannedEntry.Pending).
func (e *Engine) PlanManifestFrom(ctx context.Context, m *manifest.Manifest, in ManifestInputs) (*ManifestPlan, error) {
	plan, err := CheckManifest(m)
	if err != nil {
		return nil, err
	}
	host := e.HostSources()
	plan.MountPrior = in.MountApplied
	for i := range plan.Entries {
		pe := &plan.Entries[i]
		if pe.Mount != nil {
			if err := planMount(pe, in); err != nil {
				return nil, &EntryError{Path: pe.Path, Err: err}
			}
			continue
		}
		switch pe.Entry.Type {
		case "file":
			content, _ := pe.Entry.StringField("content")
			pe.SHA256 = checksum.DigestBytes([]byte(content)).SHA256
		case "local_file":
			_, d, err := host.DigestFile(ctx, pe.Source())
			if err != nil {
				return nil, fmt.Errorf("entry %q: %w", pe.Path, err)
			}
			pe.SHA256 = d.SHA256
		case "git_repo":
			if err := e.gitPlan(ctx, pe, in); err != nil {
				return nil, &EntryError{Path: pe.Path, Err: err}
			}
		case "local_dir":
			if pe.Source() == "" {
				continue
			}
			tree, err := host.ScanDir(ctx, pe.Source())
			if err != nil {
				return nil, fmt.Errorf("entry %q: %w", pe.Path, err)
			}
			s := SummarizeCopy(tree, pe.Meta())
			pe.Tree, pe.SHA256 = &s, s.SHA256
		}
	}
	return plan, nil
}

// EntryResult is what one manifest entry amounts to in a workspace.
type EntryResult struct {
	Type string
	// SHA256 as PlannedEntry.SHA256 ("" for directories and for an entry
	// that is missing or not what it should be).
	SHA256 string
	// Permissions is the mode as four octal digits ("0755"), "" when the
	// entry is missing.
	Permissions string
	// Group is the group name when the entry sets one.
	Group string
	// Commit is a git_repo entry's 40-hex commit ("" for other types, and
	// while unknown).
	Commit string
	// IsMount is set for a mount entry; Mounted says whether its mount is
	// there and answering.
	IsMount, Mounted bool
}

// ManifestResult is a manifest's footprint: Entries by path and Files, the
// workspace-relative path and SHA-256 of every file it writes (file and
// local_file entries and the files of local_dir copies and git_repo
// checkouts). Pending lists the entries whose tree is known only after the
// apply: their SHA256, and Files as a whole, are unknown until then.
type ManifestResult struct {
	Entries map[string]EntryResult
	Files   map[string]string
	Pending []string
}

// Expected returns the result applying the plan will produce.
func (p *ManifestPlan) Expected() ManifestResult {
	r := ManifestResult{Entries: map[string]EntryResult{}, Files: map[string]string{}}
	for _, pe := range p.Entries {
		if pe.Mount != nil {
			r.Entries[pe.Path] = EntryResult{Type: pe.Entry.Type, IsMount: true, Mounted: true}
			continue
		}
		res := EntryResult{Type: pe.Entry.Type, SHA256: pe.SHA256, Permissions: pe.Entry.Permissions.ChmodArg()}
		if pe.Entry.Group != nil {
			res.Group = pe.Entry.Group.Name
		}
		if pe.Git != nil {
			res.Commit = pe.Git.Commit
		}
		if pe.Pending() {
			r.Pending = append(r.Pending, pe.Path)
		}
		r.Entries[pe.Path] = res
		pe.addFiles(r.Files)
	}
	return r
}

// addFiles adds the files the entry writes, workspace-relative path to
// SHA-256, to files.
func (p PlannedEntry) addFiles(files map[string]string) {
	switch {
	case p.Entry.Type == "file" || p.Entry.Type == "local_file":
		files[p.Path] = p.SHA256
	case p.Tree != nil:
		for rel, sum := range p.Tree.Files {
			files[joinRel(p.Path, rel)] = sum
		}
	}
}

func contains(list []string, s string) bool {
	i := sort.SearchStrings(list, s)
	return i < len(list) && list[i] == s
}
