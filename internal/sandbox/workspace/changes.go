package workspace

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/redact"
)

// ChangesRequest compares a workspace's current tree with a baseline: a
// snapshot archive on the host (SnapshotPath, checked against
// SnapshotSHA256 when set) or the digests of its declared entries
// (Entries, workspace-relative path → SHA-256).
type ChangesRequest struct {
	SnapshotPath   string
	SnapshotSHA256 string
	Entries        map[string]string
	// Exclude are workspace-relative paths left out of the current tree
	// (as a snapshot's exclude), in addition to the ephemeral entries.
	Exclude []string
	// Limits bound each tree read (the current tree, the archive).
	Limits sandbox.OutputLimits
	// MaxDiffFileBytes: a text file larger than this on either side is
	// listed but not diffed. MaxDiffBytes bounds the whole diff; past it
	// the diff ends with a line saying it was cut.
	MaxDiffFileBytes, MaxDiffBytes int64
}

// ChangedFile is one path that differs. Size and SHA256 are the current
// file's (the baseline's for a removed path); Old* are the baseline's for
// a modified one (OldSize is -1 when the baseline only has a digest).
type ChangedFile struct {
	Path      string
	Type      string // "file" or "symlink"
	Size      int64
	SHA256    string
	OldSize   int64
	OldSHA256 string
}

// Changes is what differs between the baseline and the current tree,
// each list sorted by path, and a unified diff of the text files.
type Changes struct {
	Added, Modified, Removed []ChangedFile
	Diff                     string
	DiffTruncated            bool
}

// treeFile is one regular file or symlink of a tree read from a tar.
type treeFile struct {
	typ    string
	size   int64
	sha256 string
	text   []byte // the content when it is text of at most the diff bound
}

// Changes reads the workspace's current tree (as a snapshot would persist
// it: bounded by req.Limits and checked member by member) and the
// baseline, and compares them. It only reads.
func (w *Workspace) Changes(ctx context.Context, req ChangesRequest) (Changes, error) {
	var base map[string]treeFile
	if req.SnapshotPath != "" {
		b, err := w.eng.readArchiveTree(ctx, req)
		if err != nil {
			return Changes{}, fmt.Errorf("baseline snapshot %s: %w", req.SnapshotPath, err)
		}
		base = b
	} else {
		base = make(map[string]treeFile, len(req.Entries))
		for p, sum := range req.Entries {
			base[path.Clean(p)] = treeFile{typ: "file", size: -1, sha256: sum}
		}
	}
	cur, err := w.currentTree(ctx, req)
	if err != nil {
		return Changes{}, fmt.Errorf("reading the tree of workspace %s: %w", w.ID, err)
	}
	return compareTrees(base, cur, req), nil
}

func (e *Engine) readArchiveTree(ctx context.Context, req ChangesRequest) (map[string]treeFile, error) {
	f, err := os.Open(e.HostPath(req.SnapshotPath))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	tree, err := readTree(ctx, io.TeeReader(f, h), req)
	if err != nil {
		return nil, err
	}
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	if got := hex.EncodeToString(h.Sum(nil)); req.SnapshotSHA256 != "" && got != req.SnapshotSHA256 {
		return nil, fmt.Errorf("%w: it has sha256 %s, snapshot_sha256 is %s", ErrArchiveChanged, got, req.SnapshotSHA256)
	}
	return tree, nil
}

// currentTree streams the workspace's persisted tar (checked and bounded
// as a snapshot's) through readTree.
func (w *Workspace) currentTree(ctx context.Context, req ChangesRequest) (map[string]treeFile, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, _, err := w.persistTo(ctx, SnapshotRequest{Exclude: req.Exclude, Limits: req.Limits, ExcludeUnsafe: true}, pw)
		pw.CloseWithError(err)
		done <- err
	}()
	tree, err := readTree(ctx, pr, req)
	if err == nil {
		_, err = io.Copy(io.Discard, pr)
	}
	pr.CloseWithError(errors.New("the comparison stopped"))
	if err != nil {
		cancel()
		if perr := <-done; perr != nil && errors.Is(err, perr) {
			return nil, perr // the persist's own error is the cause
		}
		return nil, err
	}
	return tree, <-done
}

// readTree reads the regular files and symlinks of a tar, bounded by
// req.Limits: names must be workspace-relative without "..", and what a
// member holds is hashed as it streams, keeping only small text.
func readTree(ctx context.Context, r io.Reader, req ChangesRequest) (map[string]treeFile, error) {
	lim := req.Limits.WithDefaults()
	tr := tar.NewReader(r)
	out := map[string]treeFile{}
	var files, total int64
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		name := path.Clean(strings.TrimPrefix(hdr.Name, "./"))
		if name == "." {
			continue
		}
		if path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			return nil, fmt.Errorf("member %s leaves the root", SafeName(hdr.Name))
		}
		if files++; files > lim.MaxFiles {
			return nil, &sandbox.LimitError{Op: "changes", Limit: "max_files", Value: lim.MaxFiles, Path: SafeName(name)}
		}
		switch hdr.Typeflag {
		case tar.TypeReg:
			if total += hdr.Size; total > lim.MaxBytes {
				return nil, &sandbox.LimitError{Op: "changes", Limit: "max_bytes", Value: lim.MaxBytes, Path: SafeName(name)}
			}
			f, err := readMember(tr, hdr.Size, req.MaxDiffFileBytes)
			if err != nil {
				return nil, fmt.Errorf("member %s: %w", SafeName(name), err)
			}
			out[name] = f
		case tar.TypeSymlink:
			sum := sha256.Sum256([]byte(hdr.Linkname))
			out[name] = treeFile{typ: "symlink", size: int64(len(hdr.Linkname)), sha256: hex.EncodeToString(sum[:])}
		}
	}
}

func readMember(r io.Reader, size, keep int64) (treeFile, error) {
	h := sha256.New()
	var buf []byte
	var w io.Writer = h
	var b strings.Builder
	if size <= keep {
		w = io.MultiWriter(h, &b)
	}
	n, err := io.Copy(w, io.LimitReader(r, size))
	if err != nil {
		return treeFile{}, err
	}
	if n != size {
		return treeFile{}, io.ErrUnexpectedEOF
	}
	if size <= keep {
		buf = []byte(b.String())
		if !isText(buf) {
			buf = nil
		}
	}
	return treeFile{typ: "file", size: size, sha256: hex.EncodeToString(h.Sum(nil)), text: buf}, nil
}

// isText: valid UTF-8 without NUL bytes.
func isText(b []byte) bool {
	return utf8.Valid(b) && !strings.ContainsRune(string(b), 0)
}

// SafeName is a path from a sandbox as it may be shown: valid UTF-8 with
// control characters (newlines and tabs too) written as \xNN, bidirectional
// and zero-width characters as \uNNNN (sandbox.EscapeTerminal), and the
// write-only values the provider was given REDACTED.
func SafeName(s string) string {
	s = sandbox.EscapeTerminal(redact.WriteOnly(s))
	return strings.NewReplacer("\n", `\x0a`, "\t", `\x09`).Replace(s)
}

func compareTrees(base, cur map[string]treeFile, req ChangesRequest) Changes {
	var c Changes
	names := make([]string, 0, len(base)+len(cur))
	for p := range base {
		names = append(names, p)
	}
	for p := range cur {
		if _, ok := base[p]; !ok {
			names = append(names, p)
		}
	}
	sort.Strings(names)
	var diff strings.Builder
	for _, p := range names {
		b, inBase := base[p]
		n, inCur := cur[p]
		switch {
		case !inBase:
			c.Added = append(c.Added, ChangedFile{Path: SafeName(p), Type: n.typ, Size: n.size, SHA256: n.sha256, OldSize: -1})
			c.addDiff(&diff, p, nil, n, req.MaxDiffBytes)
		case !inCur:
			c.Removed = append(c.Removed, ChangedFile{Path: SafeName(p), Type: b.typ, Size: b.size, SHA256: b.sha256, OldSize: -1})
			c.addDiff(&diff, p, &b, treeFile{}, req.MaxDiffBytes)
		case b.sha256 != n.sha256 || b.typ != n.typ:
			c.Modified = append(c.Modified, ChangedFile{Path: SafeName(p), Type: n.typ, Size: n.size, SHA256: n.sha256,
				OldSize: b.size, OldSHA256: b.sha256})
			c.addDiff(&diff, p, &b, n, req.MaxDiffBytes)
		}
	}
	c.Diff = diff.String()
	return c
}

// addDiff appends the unified diff of one text file (nil old: added; a
// zero cur: removed), unless either side is not text or not kept.
func (c *Changes) addDiff(out *strings.Builder, p string, old *treeFile, cur treeFile, max int64) {
	if c.DiffTruncated {
		return
	}
	name := SafeName(p)
	d := difflib.UnifiedDiff{FromFile: "a/" + name, ToFile: "b/" + name, Context: 3}
	switch {
	case old == nil:
		if cur.typ != "file" || cur.text == nil {
			return
		}
		d.FromFile, d.B = "/dev/null", difflib.SplitLines(string(cur.text))
	case cur.typ == "":
		if old.typ != "file" || old.text == nil {
			return
		}
		d.ToFile, d.A = "/dev/null", difflib.SplitLines(string(old.text))
	default:
		if old.typ != "file" || cur.typ != "file" || old.text == nil || cur.text == nil {
			return
		}
		d.A, d.B = difflib.SplitLines(string(old.text)), difflib.SplitLines(string(cur.text))
	}
	// SplitLines gives a text without a final newline an empty last line.
	trim := func(l []string) []string {
		if n := len(l); n > 0 && l[n-1] == "\n" {
			return l[:n-1]
		}
		return l
	}
	d.A, d.B = trim(d.A), trim(d.B)
	s, err := difflib.GetUnifiedDiffString(d)
	if err != nil || s == "" {
		return
	}
	// A file the agent wrote is shown in plans and outputs: nothing in it may
	// drive the terminal that shows it.
	s = sandbox.EscapeTerminal(s)
	if max > 0 && int64(out.Len()+len(s)) > max {
		c.DiffTruncated = true
		fmt.Fprintf(out, "# diff cut at %d bytes (max_diff_bytes)\n", max)
		return
	}
	out.WriteString(s)
}
