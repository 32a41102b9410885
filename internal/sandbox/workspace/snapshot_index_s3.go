package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/s3store"
)

// An S3 snapshot taken with inputs has an index object beside its archive,
// <prefix>/<snapshot_id>.inputs.json, written once the upload is complete
// (the archive's sha256 is known only then), so that FindS3Snapshots can
// find it by its inputs digest without reading every archive.

// MaxS3Indexes bounds the index objects FindS3Snapshots reads.
const MaxS3Indexes = 1000

// WriteS3SnapshotIndex uploads ix beside the archive of ix.SnapshotID.
func (e *Engine) WriteS3SnapshotIndex(ctx context.Context, t S3Target, ix SnapshotIndex) error {
	b, err := json.Marshal(ix)
	if err != nil {
		return err
	}
	c, err := s3store.New(t.indexLocation(ix.SnapshotID), t.Credentials)
	if err != nil {
		return err
	}
	if err := c.Put(ctx, b); err != nil {
		return fmt.Errorf("index of snapshot %s: %w", ix.SnapshotID, err)
	}
	return nil
}

// RemoveS3SnapshotIndex deletes the index object of the archive at loc (a
// missing one is not an error).
func (e *Engine) RemoveS3SnapshotIndex(ctx context.Context, loc s3store.Location, cr s3store.Credentials) error {
	loc.Key = strings.TrimSuffix(loc.Key, ".tar") + indexSuffix
	c, err := s3store.New(loc, cr)
	if err != nil {
		return err
	}
	return c.Delete(ctx)
}

func (t S3Target) indexLocation(id string) s3store.Location {
	return s3store.Location{Endpoint: t.Endpoint, Region: t.Region, Bucket: t.Bucket, Key: s3store.IndexKey(t.Prefix, id)}
}

// S3Prefix is the listing prefix of t's snapshots: "<prefix>/" ("" for
// the bucket's top level).
func (t S3Target) S3Prefix() string {
	return strings.TrimSuffix(s3store.SnapshotKey(t.Prefix, "x"), "x.tar")
}

// FoundS3Snapshot is an S3 archive whose index matches.
type FoundS3Snapshot struct {
	SnapshotIndex
	Location s3store.Location
	ModTime  int64
}

// FindS3Snapshots lists the archives directly below t's prefix whose index
// object records inputsSHA256, newest first. It only reads: at most
// MaxS3Indexes index objects, each small and well-formed and naming its
// own key, whose archive exists with the recorded size; any other is
// skipped (reported). The archives are not read: a restore checks the
// sha256 it is given.
func (e *Engine) FindS3Snapshots(ctx context.Context, t S3Target, inputsSHA256 string) (found []FoundS3Snapshot, skipped []string, err error) {
	prefix := t.S3Prefix()
	list := s3store.Location{Endpoint: t.Endpoint, Region: t.Region, Bucket: t.Bucket, Key: prefix}
	keys, truncated, err := s3store.List(ctx, list, t.Credentials, indexSuffix, MaxS3Indexes)
	if err != nil {
		return nil, nil, err
	}
	if truncated {
		skipped = append(skipped, fmt.Sprintf("s3://%s/%s: more than %d indexes; only the first were read", t.Bucket, prefix, MaxS3Indexes))
	}
	for _, key := range keys {
		name := strings.TrimPrefix(key, prefix)
		if strings.Contains(name, "/") || strings.HasPrefix(name, ".") {
			continue // below a deeper prefix: another target's
		}
		loc := list
		loc.Key = key
		f, err := e.readS3Index(ctx, loc, t.Credentials, name, inputsSHA256)
		var skip indexSkipped
		switch {
		case errors.As(err, &skip):
			skipped = append(skipped, fmt.Sprintf("%s: %v", SafeName(loc.URL()), skip.error))
		case err != nil:
			return nil, nil, err
		case f != nil:
			found = append(found, *f)
		}
	}
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].ModTime != found[j].ModTime {
			return found[i].ModTime > found[j].ModTime
		}
		return found[i].SnapshotID < found[j].SnapshotID
	})
	return found, skipped, nil
}

// indexSkipped is an index object that is not used, and why.
type indexSkipped struct{ error }

// readS3Index reads one index object: f is its archive when it records
// inputsSHA256 (nil otherwise); an index that is not used is an
// indexSkipped error.
func (e *Engine) readS3Index(ctx context.Context, loc s3store.Location, cr s3store.Credentials, name, inputsSHA256 string) (*FoundS3Snapshot, error) {
	c, err := s3store.New(loc, cr)
	if err != nil {
		return nil, err
	}
	b, err := c.ReadSmall(ctx, maxIndexBytes)
	if err != nil {
		return nil, indexSkipped{err}
	}
	ix, err := parseIndex(path.Base(name), b)
	if err != nil {
		return nil, indexSkipped{err}
	}
	if inputsSHA256 != "" && ix.InputsSHA256 != inputsSHA256 {
		return nil, nil
	}
	archive := loc
	archive.Key = strings.TrimSuffix(loc.Key, indexSuffix) + ".tar"
	ac, err := s3store.New(archive, cr)
	if err != nil {
		return nil, err
	}
	st, err := ac.Head(ctx)
	switch {
	case err != nil:
		return nil, err
	case !st.Exists || st.Size != ix.Size:
		return nil, indexSkipped{errors.New("the archive is missing or differs from the size recorded")}
	}
	return &FoundS3Snapshot{SnapshotIndex: ix, Location: archive, ModTime: st.LastModified}, nil
}
