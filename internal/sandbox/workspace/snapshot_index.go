package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/snapshot"
)

// A local snapshot taken with inputs has an index file beside its
// archive, <base>/<snapshot_id>.inputs.json, so that FindSnapshots can
// find it by its inputs digest without reading every archive.
const indexSuffix = ".inputs.json"

// maxIndexBytes bounds an index file read back.
const maxIndexBytes = 4096

var (
	hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)
	// snapshotIDPattern is what a snapshot id this provider writes looks
	// like (a UUID, or any plain name), so that an index planted under a key
	// with control characters or odd bytes names no snapshot.
	snapshotIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
)

// SnapshotIndex is what an index file records.
type SnapshotIndex struct {
	SnapshotID   string `json:"snapshot_id"`
	InputsSHA256 string `json:"inputs_sha256"`
	SHA256       string `json:"sha256"`
	Size         int64  `json:"size"`
}

// FoundSnapshot is a local archive whose index matches, checked against
// the archive's bytes; Path is relative to the working directory when the
// base path is.
type FoundSnapshot struct {
	SnapshotIndex
	Path    string
	ModTime int64
}

func indexPath(base, id string) (string, error) {
	p, err := snapshot.LocalPath(base, id)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(p, ".tar") + indexSuffix, nil
}

// WriteSnapshotIndex records ix beside the archive of ix.SnapshotID under
// base (atomically: a temporary file renamed into place).
func (e *Engine) WriteSnapshotIndex(base string, ix SnapshotIndex) error {
	rel, err := indexPath(base, ix.SnapshotID)
	if err != nil {
		return err
	}
	b, err := json.Marshal(ix)
	if err != nil {
		return err
	}
	dest := e.HostPath(rel)
	tmp, err := os.CreateTemp(filepath.Dir(dest), "."+ix.SnapshotID+".inputs-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dest)
	}
	if err != nil {
		return fmt.Errorf("index of snapshot %s: %w", ix.SnapshotID, err)
	}
	return nil
}

// RemoveSnapshotIndex removes the index of the archive at archivePath (a
// missing one is not an error).
func (e *Engine) RemoveSnapshotIndex(archivePath string) error {
	p := strings.TrimSuffix(e.HostPath(archivePath), ".tar") + indexSuffix
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// FindSnapshots lists the archives under base whose index records
// inputsSHA256 (every indexed archive when it is empty), newest first.
// It only reads. An index is used only when it is small, well-formed,
// names its own file and its archive has the recorded SHA-256 (each
// match is hashed); others are skipped and described in skipped.
func (e *Engine) FindSnapshots(ctx context.Context, base, inputsSHA256 string) (found []FoundSnapshot, skipped []string, err error) {
	entries, err := os.ReadDir(e.HostPath(base))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	for _, de := range entries {
		name := de.Name()
		if !de.Type().IsRegular() || !strings.HasSuffix(name, indexSuffix) || strings.HasPrefix(name, ".") {
			continue
		}
		ix, err := e.readIndex(path.Join(base, name))
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s: %v", SafeName(name), err))
			continue
		}
		if inputsSHA256 != "" && ix.InputsSHA256 != inputsSHA256 {
			continue
		}
		archive, _ := snapshot.LocalPath(base, ix.SnapshotID)
		st, err := e.ReadArchive(ctx, archive)
		switch {
		case err != nil:
			return nil, nil, err
		case !st.Exists || st.SHA256 != ix.SHA256:
			skipped = append(skipped, fmt.Sprintf("%s: the archive is missing or differs from the sha256 recorded", SafeName(name)))
			continue
		}
		fi, err := os.Stat(e.HostPath(archive))
		if err != nil {
			return nil, nil, err
		}
		found = append(found, FoundSnapshot{SnapshotIndex: ix, Path: archive, ModTime: fi.ModTime().UnixNano()})
	}
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].ModTime != found[j].ModTime {
			return found[i].ModTime > found[j].ModTime
		}
		return found[i].SnapshotID < found[j].SnapshotID
	})
	return found, skipped, nil
}

func (e *Engine) readIndex(rel string) (SnapshotIndex, error) {
	f, err := os.Open(e.HostPath(rel))
	if err != nil {
		return SnapshotIndex{}, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxIndexBytes+1))
	if err != nil {
		return SnapshotIndex{}, err
	}
	return parseIndex(path.Base(rel), b)
}

// parseIndex checks an index read back from a file or an object named
// name: small, well-formed, naming its own file, with hex digests.
func parseIndex(name string, b []byte) (SnapshotIndex, error) {
	if len(b) > maxIndexBytes {
		return SnapshotIndex{}, fmt.Errorf("larger than %d bytes", maxIndexBytes)
	}
	var ix SnapshotIndex
	if err := json.Unmarshal(b, &ix); err != nil {
		return SnapshotIndex{}, err
	}
	if name != ix.SnapshotID+indexSuffix || !snapshotIDPattern.MatchString(ix.SnapshotID) ||
		!hex64.MatchString(ix.SHA256) || !hex64.MatchString(ix.InputsSHA256) || ix.Size < 0 {
		return SnapshotIndex{}, errors.New("not an index this provider wrote")
	}
	return ix, nil
}
