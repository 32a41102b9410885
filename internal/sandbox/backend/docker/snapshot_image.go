package docker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/redact"
)

// Labels of a snapshot image.
const (
	LabelSnapshotID          = "sandbox.snapshot_id"
	LabelSnapshotWorkspaceID = "sandbox.snapshot_workspace_id"
)

// ImageSnapshot is one whole-filesystem image of a workspace container.
type ImageSnapshot struct {
	// Repository and Tag name the image (Tag default "latest").
	Repository, Tag string
	// Labels are added to those of the container's image, less any label
	// of an earlier snapshot (labelSnapshotPrefix).
	Labels map[string]string
	// Root is the workspace root: a snapshot of a container whose root is
	// a mount (a tmpfs with docker.disk, a volume) is refused, since a
	// mount's contents are never in the image.
	Root string
	// Drop are absolute container paths left out with everything below.
	Drop   []string
	Limits sandbox.OutputLimits
	// WriteOnly are the values no regular file may hold.
	WriteOnly []redact.WriteOnlyValue
}

// ImageSnapshotResult is the image written.
type ImageSnapshotResult struct {
	ID      string // "sha256:..."
	Members int64  // members of the filesystem written
	Bytes   int64  // data bytes of its regular files
	Files   int    // its regular files
}

// ErrRootIsMount is returned by SnapshotImage for a workspace whose root is
// a mount (docker.disk makes it a tmpfs): an image cannot hold its files.
var ErrRootIsMount = errors.New("the workspace root is a mount, whose files an image cannot hold")

// runtimePoints are the paths the runtime mounts into every container.
var runtimePoints = []string{"/dev", "/proc", "/sys", "/etc/hosts", "/etc/hostname", "/etc/resolv.conf",
	fshelper.HelperDir, fshelper.DigestDir}

// SnapshotImage writes the container's whole filesystem as a new local
// image: the filesystem is exported through the daemon (docker export),
// filtered (rootfsFilter: s.Drop, every mount point's contents, devices)
// and imported as a single-layer image carrying the configuration of the
// container's image (Env, Cmd, Entrypoint, WorkingDir, User,
// ExposedPorts, Labels), never the container's own (its environment may
// hold write-only values). A commit would keep what is left out in a lower
// layer; an import holds only what was written.
func (b *Backend) SnapshotImage(ctx context.Context, s ImageSnapshot) (ImageSnapshotResult, error) {
	c, ok, err := b.d.inspect(ctx, b.id)
	if err != nil {
		return ImageSnapshotResult{}, err
	}
	if !ok {
		return ImageSnapshotResult{}, fmt.Errorf("container %s no longer exists", short(b.id))
	}
	cli, err := b.d.api()
	if err != nil {
		return ImageSnapshotResult{}, err
	}
	img, err := cli.ImageInspect(ctx, c.Image)
	if err != nil {
		return ImageSnapshotResult{}, fmt.Errorf("inspecting the workspace's image: %w", err)
	}
	points := mountPoints(c)
	if s.Root != "" && slices.Contains(points, s.Root) {
		return ImageSnapshotResult{}, fmt.Errorf("%w: %s is a mount in container %s", ErrRootIsMount, s.Root, short(b.id))
	}
	f := rootfsFilter{Drop: s.Drop, MountPoints: points, Limits: s.Limits, WriteOnly: s.WriteOnly}
	exp, err := cli.ContainerExport(ctx, b.id, client.ContainerExportOptions{})
	if err != nil {
		return ImageSnapshotResult{}, fmt.Errorf("exporting container %s: %w", short(b.id), err)
	}
	defer exp.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	filtered := make(chan error, 1)
	var st rootfsStats
	go func() {
		var err error
		st, err = f.filter(ctx, exp, pw)
		pw.CloseWithError(err)
		filtered <- err
	}()
	tag := s.Tag
	if tag == "" {
		tag = "latest"
	}
	set := imageSettings{Labels: map[string]string{}}
	if ic := img.Config; ic != nil {
		set.Env, set.Cmd, set.Entrypoint, set.WorkingDir, set.User = ic.Env, ic.Cmd, ic.Entrypoint, ic.WorkingDir, ic.User
		set.ExposedPorts = ic.ExposedPorts
		set.Labels = ownLabels(ic.Labels)
	}
	for k, v := range s.Labels {
		set.Labels[k] = v
	}
	changes := set.changes()
	res, err := cli.ImageImport(ctx, client.ImageImportSource{Source: pr, SourceName: "-"}, s.Repository,
		client.ImageImportOptions{Tag: tag, Changes: changes, Message: "sandbox snapshot"})
	var id string
	if err == nil {
		id, err = importedID(res)
		res.Close()
	}
	if ferr := <-filtered; ferr != nil {
		// The import saw a truncated stream: whatever it made is removed.
		if id != "" {
			_, _ = cli.ImageRemove(context.WithoutCancel(ctx), id, client.ImageRemoveOptions{Force: true})
		}
		return ImageSnapshotResult{}, ferr
	}
	if err != nil {
		return ImageSnapshotResult{}, fmt.Errorf("importing the image %s:%s: %w", s.Repository, tag, err)
	}
	return ImageSnapshotResult{ID: id, Members: st.Members, Bytes: st.Bytes, Files: st.Files}, nil
}

// mountPoints are the container's mount targets: its mounts, tmpfs and
// the runtime's own.
func mountPoints(c container.InspectResponse) []string {
	out := append([]string(nil), runtimePoints...)
	for _, m := range c.Mounts {
		out = append(out, m.Destination)
	}
	if c.HostConfig != nil {
		for t := range c.HostConfig.Tmpfs {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// dockerfileWord quotes v for an import change: a double-quoted word with
// backslash, quote and $ escaped (no variable is expanded).
func dockerfileWord(v string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`, "\n", `\n`)
	return `"` + r.Replace(v) + `"`
}

// imageSettings is the configuration an imported image is given.
type imageSettings struct {
	Env, Cmd, Entrypoint []string
	WorkingDir, User     string
	ExposedPorts         map[string]struct{}
	Labels               map[string]string
}

// jsonWords is argv as the JSON form of CMD and ENTRYPOINT.
func jsonWords(argv []string) string {
	b, _ := json.Marshal(argv)
	return string(b)
}

// changes are the Dockerfile instructions that give an imported image c.
func (c imageSettings) changes() []string {
	var out []string
	for _, kv := range c.Env {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			out = append(out, "ENV "+k+"="+dockerfileWord(v))
		}
	}
	if len(c.Entrypoint) > 0 {
		out = append(out, "ENTRYPOINT "+jsonWords(c.Entrypoint))
	}
	if len(c.Cmd) > 0 {
		out = append(out, "CMD "+jsonWords(c.Cmd))
	}
	if c.WorkingDir != "" {
		out = append(out, "WORKDIR "+dockerfileWord(c.WorkingDir))
	}
	if c.User != "" {
		out = append(out, "USER "+dockerfileWord(c.User))
	}
	ports := make([]string, 0, len(c.ExposedPorts))
	for p := range c.ExposedPorts {
		ports = append(ports, p)
	}
	sort.Strings(ports)
	for _, p := range ports {
		out = append(out, "EXPOSE "+p)
	}
	keys := make([]string, 0, len(c.Labels))
	for k := range c.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, "LABEL "+dockerfileWord(k)+"="+dockerfileWord(c.Labels[k]))
	}
	return out
}

// importMessage is one line of the import's JSON stream.
type importMessage struct {
	Status      string `json:"status"`
	Error       string `json:"error"`
	ErrorDetail *struct {
		Message string `json:"message"`
	} `json:"errorDetail"`
}

// importedID reads the import's answer (bounded) for the new image's id.
func importedID(r io.Reader) (string, error) {
	dec := json.NewDecoder(io.LimitReader(r, 1<<20))
	var id string
	for {
		var m importMessage
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return id, fmt.Errorf("reading the import's answer: %w", err)
		}
		if m.ErrorDetail != nil && m.ErrorDetail.Message != "" {
			return id, errors.New(m.ErrorDetail.Message)
		}
		if m.Error != "" {
			return id, errors.New(m.Error)
		}
		if strings.HasPrefix(m.Status, "sha256:") {
			id = strings.TrimSpace(m.Status)
		}
	}
	if id == "" {
		return "", errors.New("the daemon did not report the imported image's id")
	}
	return id, nil
}

// ImageState is what the daemon holds of a snapshot image.
type ImageState struct {
	Exists bool
	// SnapshotID is its LabelSnapshotID.
	SnapshotID string
}

// InspectSnapshotImage reads image id (only reads).
func (d *Daemon) InspectSnapshotImage(ctx context.Context, id string) (ImageState, error) {
	cli, err := d.api()
	if err != nil {
		return ImageState{}, err
	}
	img, err := cli.ImageInspect(ctx, id)
	if cerrdefs.IsNotFound(err) {
		return ImageState{}, nil
	}
	if err != nil {
		return ImageState{}, fmt.Errorf("inspecting image %s: %w", id, err)
	}
	st := ImageState{Exists: true}
	if img.Config != nil {
		st.SnapshotID = img.Config.Labels[LabelSnapshotID]
	}
	return st, nil
}

// ErrImageInUse is returned by RemoveSnapshotImage for an image that a
// container (running or not) was created from.
var ErrImageInUse = errors.New("the image is used by a container")

// RemoveSnapshotImage removes the tag ref of image id, and the image when
// no other tag holds it, unless a container uses it (ErrImageInUse naming
// them): the image then stays. A missing image is no error.
func (d *Daemon) RemoveSnapshotImage(ctx context.Context, id, ref string) error {
	cli, err := d.api()
	if err != nil {
		return err
	}
	img, err := cli.ImageInspect(ctx, id)
	if cerrdefs.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("inspecting image %s: %w", id, err)
	}
	users, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("ancestor", img.ID)})
	if err != nil {
		return fmt.Errorf("listing the containers of image %s: %w", id, err)
	}
	if len(users.Items) > 0 {
		var names []string
		for _, c := range users.Items {
			name := short(c.ID)
			if len(c.Names) > 0 {
				name = strings.TrimPrefix(c.Names[0], "/")
			}
			names = append(names, name)
		}
		sort.Strings(names)
		return fmt.Errorf("%w: %s", ErrImageInUse, strings.Join(names, ", "))
	}
	target := img.ID
	for _, t := range img.RepoTags {
		if t == ref {
			target = ref // untags; the image goes with its last tag
		}
	}
	_, err = cli.ImageRemove(ctx, target, client.ImageRemoveOptions{PruneChildren: true})
	if err != nil && !cerrdefs.IsNotFound(err) {
		return fmt.Errorf("removing image %s: %w", id, err)
	}
	return nil
}
