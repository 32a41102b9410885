package docker

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/moby/moby/client"
)

// LabelSnapshotInputs labels a snapshot image taken with inputs with their
// digest (sandbox_snapshot's inputs_sha256), so FindSnapshotImages can
// find it. An image taken without inputs has no such label, even when the
// workspace's own image had one.
const LabelSnapshotInputs = "sandbox.snapshot_inputs_sha256"

// LabelSnapshotRepository labels a snapshot image with the repository it
// was written to (FamiliarRepository), so that it is still found there
// once a later image has taken its tag over.
const LabelSnapshotRepository = "sandbox.snapshot_repository"

// FamiliarRepository is repository as the daemon names it: without the
// Docker Hub host ("docker.io/", "index.docker.io/") and, behind it, its
// "library/" namespace.
func FamiliarRepository(repository string) string {
	for _, host := range []string{"docker.io/", "index.docker.io/"} {
		if rest, ok := strings.CutPrefix(repository, host); ok {
			return strings.TrimPrefix(rest, "library/")
		}
	}
	return repository
}

// labelSnapshotPrefix starts every label this package sets on a snapshot
// image; an image inherits none of them from the image it was taken from.
const labelSnapshotPrefix = "sandbox.snapshot_"

// MaxFoundImages bounds what FindSnapshotImages returns: the newest ones.
const MaxFoundImages = 100

// FoundImage is one snapshot image found by its inputs digest.
type FoundImage struct {
	ID         string   // "sha256:..."
	RepoTags   []string // "repository:tag", sorted
	SnapshotID string   // its LabelSnapshotID
	Created    int64    // Unix seconds
	Size       int64    // bytes, as the daemon reports it
}

var snapshotIDLabel = regexp.MustCompile(`^[A-Za-z0-9._-]{1,128}$`)

// FindSnapshotImages lists the images on the daemon labelled with
// inputsSHA256 (LabelSnapshotInputs), newest first, at most
// MaxFoundImages, and with repository set only those written to it
// (LabelSnapshotRepository; an image without that label when it is tagged
// there), tagged or not: a later image may have taken the tag. Only
// reads. A snapshot_id label that is not a plain name is reported empty
// rather than passed on.
func (d *Daemon) FindSnapshotImages(ctx context.Context, inputsSHA256, repository string) ([]FoundImage, error) {
	cli, err := d.api()
	if err != nil {
		return nil, err
	}
	repository = FamiliarRepository(repository)
	f := make(client.Filters).Add("label", LabelSnapshotInputs+"="+inputsSHA256)
	res, err := cli.ImageList(ctx, client.ImageListOptions{Filters: f})
	if err != nil {
		return nil, fmt.Errorf("listing the snapshot images: %w", err)
	}
	out := make([]FoundImage, 0, len(res.Items))
	for _, it := range res.Items {
		if it.Labels[LabelSnapshotInputs] != inputsSHA256 {
			continue // the daemon filtered already; a daemon that did not is not trusted
		}
		fi := FoundImage{ID: it.ID, Created: it.Created, Size: it.Size}
		for _, t := range it.RepoTags {
			if t != "<none>:<none>" && (repository == "" || strings.HasPrefix(t, repository+":")) {
				fi.RepoTags = append(fi.RepoTags, t)
			}
		}
		if repo, ok := it.Labels[LabelSnapshotRepository]; repository != "" && (ok && repo != repository || !ok && len(fi.RepoTags) == 0) {
			continue
		}
		sort.Strings(fi.RepoTags)
		if id := it.Labels[LabelSnapshotID]; snapshotIDLabel.MatchString(id) {
			fi.SnapshotID = id
		}
		out = append(out, fi)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Created != out[j].Created {
			return out[i].Created > out[j].Created
		}
		return out[i].ID < out[j].ID
	})
	if len(out) > MaxFoundImages {
		out = out[:MaxFoundImages]
	}
	return out, nil
}

// ownLabels are the image's labels without those of an earlier snapshot.
func ownLabels(labels map[string]string) map[string]string {
	out := make(map[string]string, len(labels))
	for k, v := range labels {
		if !strings.HasPrefix(k, labelSnapshotPrefix) {
			out[k] = v
		}
	}
	return out
}
