package snapshot

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/redact"
)

// Excluded is a member a snapshot left out because a restore would refuse
// it.
type Excluded struct {
	// Path is workspace-relative; Reason says why a restore refuses it.
	Path, Reason string
}

// CheckOptions say how Check treats a persisted stream.
type CheckOptions struct {
	// Limits bound the archive written (max_bytes: its size; max_files:
	// its members); zero bounds mean the defaults.
	Limits sandbox.OutputLimits
	// ExcludeUnsafe leaves out every member a restore would refuse
	// (reported in the result) instead of failing.
	ExcludeUnsafe bool
	// ManifestDigest enters the summary's Fingerprint.
	ManifestDigest string
	// Skip are workspace-relative paths whose members (and everything
	// below them) are dropped from the stream, whatever sent them.
	Skip []string
	// WriteOnly are the write-only values no regular file may hold
	// (redact.WriteOnlyValues); a file holding one fails the snapshot
	// with a *redact.SecretFileError before its rest is written.
	WriteOnly []redact.WriteOnlyValue
}

// Check reads a persisted tar stream on r (what Persist writes, here or
// inside a container) and writes the archive to w only with members a
// restore accepts, checked with Validate's rules: a member a restore would
// refuse fails the snapshot naming it, or with ExcludeUnsafe is left out
// (every excluded member is returned). Symlinks are written after every
// other member, once the whole tree is known and each link has been
// resolved through the others. The archive written is bounded by
// o.Limits (a *sandbox.LimitError says which bound). The summary and
// fingerprint are those of the bytes written to w.
func Check(ctx context.Context, r io.Reader, w io.Writer, o CheckOptions) (Summary, []Excluded, error) {
	lim := o.Limits.WithDefaults()
	hw := &countingHash{h: sha256.New()}
	bw := &boundedWriter{w: io.MultiWriter(w, hw), max: lim.MaxBytes}
	tw := tar.NewWriter(bw)
	tr := tar.NewReader(r)
	c := newChecker("snapshot", lim)
	files := map[string]string{}
	var links []*tar.Header
	var excluded []Excluded
	secrets := redact.NewSecretScanner("snapshot", o.WriteOnly)
	for {
		if err := ctx.Err(); err != nil {
			return Summary{}, nil, err
		}
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Summary{}, nil, fmt.Errorf("reading the persisted workspace: %w", err)
		}
		if ShouldSkipTarMember(hdr.Name, o.Skip, "") {
			continue
		}
		rel, err := c.check(hdr)
		var me *MemberError
		if err != nil && o.ExcludeUnsafe && errors.As(err, &me) {
			excluded = append(excluded, Excluded{Path: memberRel(hdr.Name, ""), Reason: me.Reason})
			continue
		}
		if err != nil {
			return Summary{}, nil, err
		}
		out := &tar.Header{Typeflag: hdr.Typeflag, Name: hdr.Name, Linkname: hdr.Linkname, Mode: hdr.Mode,
			Uid: hdr.Uid, Gid: hdr.Gid, Uname: hdr.Uname, Gname: hdr.Gname, ModTime: hdr.ModTime, Format: tar.FormatPAX}
		if hdr.Typeflag == tar.TypeSymlink {
			links = append(links, out)
			continue
		}
		bw.at = rel
		if hdr.Typeflag == tar.TypeReg || hdr.Typeflag == tar.TypeRegA { //nolint:staticcheck // see check
			out.Typeflag, out.Size = tar.TypeReg, hdr.Size
		}
		if err := tw.WriteHeader(out); err != nil {
			return Summary{}, nil, fmt.Errorf("snapshot %s: %w", rel, err)
		}
		if out.Typeflag != tar.TypeReg {
			continue
		}
		h := sha256.New()
		secrets.Start(rel)
		n, err := io.Copy(tw, io.TeeReader(tr, io.MultiWriter(secrets, h)))
		var secret *redact.SecretFileError
		if errors.As(err, &secret) {
			return Summary{}, nil, secret
		}
		if err == nil && n != hdr.Size {
			err = fmt.Errorf("content size %d differs from the declared %d", n, hdr.Size)
		}
		if err != nil {
			return Summary{}, nil, fmt.Errorf("snapshot %s: %w", rel, err)
		}
		files[rel] = hex.EncodeToString(h.Sum(nil))
	}
	if o.ExcludeUnsafe {
		for rel, why := range safeLinks(c.symlinks) {
			excluded = append(excluded, Excluded{Path: rel, Reason: why})
		}
	} else if err := c.finish(); err != nil {
		return Summary{}, nil, err
	}
	for _, l := range links {
		rel := memberRel(l.Name, "")
		if _, ok := c.symlinks[rel]; !ok {
			continue
		}
		bw.at = rel
		if err := tw.WriteHeader(l); err != nil {
			return Summary{}, nil, fmt.Errorf("snapshot %s: %w", rel, err)
		}
	}
	sort.Slice(excluded, func(i, j int) bool { return excluded[i].Path < excluded[j].Path })
	bw.at = ""
	if err := tw.Close(); err != nil {
		return Summary{}, nil, fmt.Errorf("snapshot: %w", err)
	}
	fp, err := Fingerprint(hw.h, o.ManifestDigest)
	if err != nil {
		return Summary{}, nil, err
	}
	return Summary{SHA256: hex.EncodeToString(hw.h.Sum(nil)), Size: hw.n, FileCount: len(files), Files: files,
		Fingerprint: fp}, excluded, nil
}

// boundedWriter refuses to write past max bytes in all.
type boundedWriter struct {
	w   io.Writer
	n   int64
	max int64
	at  string
}

func (b *boundedWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > b.max-b.n {
		return 0, &sandbox.LimitError{Op: "snapshot", Limit: "max_bytes", Value: b.max, Path: b.at}
	}
	n, err := b.w.Write(p)
	b.n += int64(n)
	return n, err
}
