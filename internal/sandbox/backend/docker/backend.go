package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"

	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/fshelper"
)

// Kind is the value returned by Backend.Kind.
const Kind = "docker"

// Backend is a workspace inside one container. Every file operation is one
// `docker exec` of the file helper (see the package doc).
type Backend struct {
	d    *Daemon
	id   string
	root string
}

var (
	_ backend.Backend     = (*Backend)(nil)
	_ backend.BatchWriter = (*Backend)(nil)
)

// Kind returns "docker".
func (b *Backend) Kind() string { return Kind }

// Root returns the absolute workspace root inside the container.
func (b *Backend) Root() string { return b.root }

// ContainerID returns the full id of the container.
func (b *Backend) ContainerID() string { return b.id }

// Exists reports whether the container still exists, running or not; a
// removed one gives (false, nil) so that the workspace is planned for
// re-creation. It never starts anything (see Start).
func (b *Backend) Exists(ctx context.Context) (bool, error) {
	_, ok, err := b.d.inspect(ctx, b.id)
	return ok, err
}

// Start starts a stopped container, or unpauses a paused one.
func (b *Backend) Start(ctx context.Context) error {
	c, ok, err := b.d.inspect(ctx, b.id)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("container %s no longer exists", short(b.id))
	}
	cli, err := b.d.api()
	if err != nil {
		return err
	}
	switch {
	case c.State != nil && c.State.Paused:
		if _, err := cli.ContainerUnpause(ctx, b.id, client.ContainerUnpauseOptions{}); err != nil {
			return fmt.Errorf("unpausing container %s: %w", short(b.id), err)
		}
	case c.State == nil || !c.State.Running:
		if _, err := cli.ContainerStart(ctx, b.id, client.ContainerStartOptions{}); err != nil {
			return fmt.Errorf("starting stopped container %s: %w", short(b.id), err)
		}
	}
	return nil
}

// StartedAt returns when the container was last started, as the daemon
// reports it (RFC 3339 with nanoseconds), or "" when it cannot be read.
func (b *Backend) StartedAt(ctx context.Context) string {
	c, ok, err := b.d.inspect(ctx, b.id)
	if err != nil || !ok || c.State == nil {
		return ""
	}
	return c.State.StartedAt
}

// Stat describes rel without following a final symlink; Group is the
// group's name in the container's /etc/group, or the decimal gid.
func (b *Backend) Stat(ctx context.Context, rel string) (backend.FileInfo, error) {
	r, err := b.helper(ctx, fshelper.OpStat, rel, "", nil)
	if err != nil {
		return backend.FileInfo{}, err
	}
	if r.Info == nil {
		return backend.FileInfo{}, fmt.Errorf("stat %s: the file helper returned no information", rel)
	}
	return *r.Info, nil
}

// MkdirAll creates rel and its missing parents with exactly perm.
func (b *Backend) MkdirAll(ctx context.Context, rel string, perm fs.FileMode) error {
	_, err := b.helper(ctx, fshelper.OpMkdir, rel, strconv.FormatUint(uint64(perm), 10), nil)
	return err
}

// Chmod sets the mode of rel; no symlink is followed.
func (b *Backend) Chmod(ctx context.Context, rel string, perm fs.FileMode) error {
	_, err := b.helper(ctx, fshelper.OpChmod, rel, strconv.FormatUint(uint64(perm), 10), nil)
	return err
}

// Chgrp changes the group of rel to a group of the container (name or
// decimal gid); no symlink is followed.
func (b *Backend) Chgrp(ctx context.Context, rel string, group string) error {
	_, err := b.helper(ctx, fshelper.OpChgrp, rel, group, nil)
	return err
}

// Chown changes the owner and group of rel (and, with tree, of everything
// below it) to a user and group of the container, names or decimal ids;
// the helper does it inside the container in one exec.
func (b *Backend) Chown(ctx context.Context, rel, owner, group string, tree bool) error {
	op := fshelper.OpChown
	if tree {
		op = fshelper.OpChownTree
	}
	_, err := b.helper(ctx, op, rel, owner+":"+group, nil)
	return err
}

// HashFile returns the SHA-256 and size of the regular file rel, computed
// inside the container.
func (b *Backend) HashFile(ctx context.Context, rel string) (string, int64, error) {
	r, err := b.helper(ctx, fshelper.OpHash, rel, "", nil)
	return r.SHA256, r.Size, err
}

// WalkFiles lists and hashes every regular file below rel inside the
// container (one exec for the whole tree).
func (b *Backend) WalkFiles(ctx context.Context, rel string) ([]backend.TreeFile, error) {
	r, err := b.helper(ctx, fshelper.OpWalk, rel, "", nil)
	if err != nil {
		return nil, err
	}
	if r.Files == nil {
		r.Files = []backend.TreeFile{}
	}
	return r.Files, nil
}

// Remove deletes the file or empty directory rel; missing is not an error.
func (b *Backend) Remove(ctx context.Context, rel string) error {
	_, err := b.helper(ctx, fshelper.OpRemove, rel, "", nil)
	return err
}

// RemoveAll deletes rel and everything below it without following
// symlinks; missing is not an error.
func (b *Backend) RemoveAll(ctx context.Context, rel string) error {
	_, err := b.helper(ctx, fshelper.OpRemoveAll, rel, "", nil)
	return err
}

// RemoveTree removes the listed files of a tree copy, then the directories
// left empty (see backend.Backend), with one helper exec whatever the
// number of files: the list goes to the helper's stdin.
func (b *Backend) RemoveTree(ctx context.Context, rel string, files []string) (backend.RemoveReport, error) {
	list, err := json.Marshal(files)
	if err != nil {
		return backend.RemoveReport{}, err
	}
	r, err := b.helper(ctx, fshelper.OpRemoveTree, rel, "", bytes.NewReader(list))
	if err != nil {
		return backend.RemoveReport{}, err
	}
	if r.Removal == nil {
		return backend.RemoveReport{}, fmt.Errorf("remove %s: the file helper returned no report", rel)
	}
	return *r.Removal, nil
}

// WriteFile streams r into rel atomically: a one-member tar stream on the
// helper's stdin, which writes it as the local backend does. Size is not
// known in advance, so the content is first spooled to a temporary host
// file when r is not a file of known size.
func (b *Backend) WriteFile(ctx context.Context, rel string, r io.Reader, perm fs.FileMode, wantSHA256 string) (backend.WriteResult, error) {
	size, rc, cleanup, err := sized(r)
	if err != nil {
		return backend.WriteResult{}, err
	}
	defer cleanup()
	res, err := b.WriteFiles(ctx, []backend.BatchFile{{
		Rel: rel, Size: size, Perm: perm, SHA256: wantSHA256,
		Open: func(context.Context) (io.ReadCloser, error) { return io.NopCloser(rc), nil },
	}})
	if err != nil {
		return backend.WriteResult{}, err
	}
	return res[0], nil
}

// WriteFiles writes every file in one tar stream to one helper exec (see
// backend.BatchWriter). Files are opened one after the other while the
// stream is produced, so no content is ever held whole in memory.
func (b *Backend) WriteFiles(ctx context.Context, files []backend.BatchFile) ([]backend.WriteResult, error) {
	if len(files) == 0 {
		return nil, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeTar(ctx, pw, files)) }()
	r, err := b.helper(ctx, fshelper.OpWrite, ".", "", pr)
	pr.Close()
	if err != nil {
		return nil, err
	}
	if len(r.Written) != len(files) {
		return nil, fmt.Errorf("write: the file helper wrote %d of %d files", len(r.Written), len(files))
	}
	return r.Written, nil
}

// writeTar produces the OpWrite stream: one regular-file member per file,
// with its mode and the expected SHA-256 as a PAX record.
func writeTar(ctx context.Context, w io.Writer, files []backend.BatchFile) error {
	tw := tar.NewWriter(w)
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: f.Rel, Mode: int64(unixPerm(f.Perm)), Size: f.Size, Format: tar.FormatPAX}
		if f.SHA256 != "" {
			hdr.PAXRecords = map[string]string{fshelper.PAXSHA256: f.SHA256}
		}
		rc, err := f.Open(ctx)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(hdr); err != nil {
			rc.Close()
			return err
		}
		n, err := io.Copy(tw, rc)
		rc.Close()
		if errors.Is(err, tar.ErrWriteTooLong) {
			return fmt.Errorf("write %s: the source yielded more than the %d bytes expected: %w", f.Rel, f.Size, backend.ErrContentChanged)
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", f.Rel, err)
		}
		if n != f.Size {
			return fmt.Errorf("write %s: the source yielded %d bytes, expected %d: %w", f.Rel, n, f.Size, backend.ErrContentChanged)
		}
	}
	return tw.Close()
}

// unixPerm is the tar mode of perm: permission bits plus setuid, setgid and
// sticky.
func unixPerm(m fs.FileMode) uint32 {
	mode := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		mode |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		mode |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		mode |= 0o1000
	}
	return mode
}
