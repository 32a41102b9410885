package docker

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/incontainer"
)

// The file helper reaches a workspace container on a named volume of the
// daemon, HelperVolumePrefix + the helper's digest, mounted read-only at
// fshelper.HelperDir itself. The agent, even root, cannot write to it, and
// cannot rename or remove the directory (a mount point: EBUSY); without
// CAP_SYS_ADMIN it cannot unmount it either. The volume is filled once per
// daemon and helper version through a container that is created, never
// started, and removed again, so it works the same on a remote daemon,
// where a host bind mount would not; that container's name is the lock
// between provider processes (fillHelperVolume).
const (
	// HelperVolumePrefix starts the name of every helper volume.
	HelperVolumePrefix = "sandbox-fs-helper-"
	// LabelHelperVolume marks a helper volume (and its filling
	// container) with the helper's digest.
	LabelHelperVolume = "sandbox.fs_helper"
	// helperComplete is written into the volume after the binary, in the
	// same archive: a volume without it was never completely filled.
	helperComplete = "complete"
)

func helperVolume(digest string) string { return HelperVolumePrefix + digest }

// helperMount is the read-only mount of the helper volume in a workspace
// container. NoCopy: the image's own files at that path never reach it.
func helperMount(digest string) mount.Mount {
	return mount.Mount{Type: mount.TypeVolume, Source: helperVolume(digest), Target: fshelper.HelperDir, ReadOnly: true,
		VolumeOptions: &mount.VolumeOptions{NoCopy: true}}
}

// ensureHelperVolume creates and fills the volume of helper h when the
// daemon lacks it, using image for the filling container.
func (d *Daemon) ensureHelperVolume(ctx context.Context, image string, h incontainer.Helper) error {
	d.volumeMu.Lock()
	defer d.volumeMu.Unlock()
	cli, err := d.api()
	if err != nil {
		return err
	}
	name := helperVolume(h.Digest)
	v, found, err := d.inspectVolume(ctx, name)
	if err != nil {
		return err
	}
	if found && v.Labels[LabelHelperVolume] != h.Digest {
		return fmt.Errorf("volume %s exists but was not made by the provider (no label %s=%s): remove it, the provider makes its own",
			name, LabelHelperVolume, h.Digest)
	}
	if !found {
		if _, err := cli.VolumeCreate(ctx, client.VolumeCreateOptions{Name: name, Driver: "local", Labels: map[string]string{LabelHelperVolume: h.Digest}}); err != nil {
			return fmt.Errorf("creating the file helper volume %s: %w", name, err)
		}
	}
	for {
		done, err := d.fillHelperVolume(ctx, cli, image, h)
		if done || err != nil {
			return err
		}
	}
}

// fillHelperVolume fills the helper volume through a filling container
// named after the helper's digest. The name is the lock between provider
// processes that meet the same daemon: a second extraction into a filled
// volume would replace the binary while a workspace may be starting it.
// When another process holds the name, fillHelperVolume waits until that
// container is gone and returns done = false for the caller to look again;
// a filling container older than helperFillStale (its process died before
// removing it) is removed, by id, so that a newer one is never taken for it.
func (d *Daemon) fillHelperVolume(ctx context.Context, cli *client.Client, image string, h incontainer.Helper) (done bool, err error) {
	name := helperVolume(h.Digest)
	fillerName := name + "-fill"
	filler, err := cli.ContainerCreate(ctx, client.ContainerCreateOptions{
		Name: fillerName,
		Config: &container.Config{Image: image, Entrypoint: []string{path.Join(fshelper.HelperDir, h.Digest, fshelper.HelperName)},
			Cmd: []string{fshelper.OpVersion}, NetworkDisabled: true, Labels: map[string]string{LabelHelperVolume: h.Digest}},
		HostConfig: &container.HostConfig{NetworkMode: "none", Mounts: []mount.Mount{{Type: mount.TypeVolume, Source: name,
			Target: fshelper.HelperDir, VolumeOptions: &mount.VolumeOptions{NoCopy: true}}}},
	})
	if cerrdefs.IsConflict(err) {
		return false, waitForFiller(ctx, cli, fillerName)
	}
	if err != nil {
		return false, fmt.Errorf("creating a container to fill the file helper volume %s: %w", name, err)
	}
	defer func() {
		_, _ = cli.ContainerRemove(context.WithoutCancel(ctx), filler.ID, client.ContainerRemoveOptions{Force: true})
	}()
	marker := path.Join(fshelper.HelperDir, h.Digest, helperComplete)
	if _, err := cli.ContainerStatPath(ctx, filler.ID, client.ContainerStatPathOptions{Path: marker}); err == nil {
		return true, nil
	} else if !cerrdefs.IsNotFound(err) {
		return false, fmt.Errorf("checking the file helper volume %s: %w", name, err)
	}
	if err := (containerRunner{d: d, id: filler.ID}).copyHelper(ctx, h, true); err != nil {
		return false, fmt.Errorf("filling the file helper volume %s: %w", name, err)
	}
	return true, nil
}

// helperFillStale is the age past which a filling container is taken for
// one whose process died. A fill copies the helper (the provider's own
// binary, about 100 MB, unless SANDBOX_FS_HELPER names a smaller one): under
// a second on a local daemon, and well within this on a slow remote one.
var helperFillStale = 10 * time.Minute

// waitForFiller waits until the filling container named name is gone,
// removing it (by id) once it is older than helperFillStale.
func waitForFiller(ctx context.Context, cli *client.Client, name string) error {
	for {
		res, err := cli.ContainerInspect(ctx, name, client.ContainerInspectOptions{})
		if cerrdefs.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("waiting for %s, which another provider process uses to fill the file helper volume: %w", name, err)
		}
		if created, perr := time.Parse(time.RFC3339Nano, res.Container.Created); perr == nil && time.Since(created) > helperFillStale {
			// Other processes may be removing it too: the daemon answers
			// them with a conflict ("removal ... already in progress").
			_, err := cli.ContainerRemove(ctx, res.Container.ID, client.ContainerRemoveOptions{Force: true})
			if err != nil && !cerrdefs.IsNotFound(err) && !cerrdefs.IsConflict(err) {
				return fmt.Errorf("removing %s, left by a provider process that stopped while filling the file helper volume: %w", name, err)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s, which another provider process uses to fill the file helper volume: %w", name, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// protectedHelper implements incontainer.Hooks.Protected: the helper's
// path on the read-only helper volume mounted at fshelper.HelperDir, as
// the daemon describes the container. A container without that mount
// (created by an earlier provider version) gives "": its helper is
// installed as before and not protected from the agent. The digest is the
// volume's, which differs from h's after a provider upgrade: the older
// helper then serves as long as it speaks the same protocol.
func (b *Backend) protectedHelper(ctx context.Context, _ incontainer.Helper) (string, error) {
	c, found, err := b.inspect(ctx)
	if err != nil {
		return "", err
	}
	if !found {
		return "", errors.New("the container no longer exists")
	}
	for _, m := range c.Mounts {
		if m.Destination != fshelper.HelperDir {
			continue
		}
		if m.Type != mount.TypeVolume || !strings.HasPrefix(m.Name, HelperVolumePrefix) {
			return "", nil
		}
		digest := strings.TrimPrefix(m.Name, HelperVolumePrefix)
		if m.RW || !isHexDigest(digest) {
			return "", fmt.Errorf("the file helper volume %s is mounted at %s read-write or under an unexpected name: its helper is not trusted; "+
				"re-create the workspace", m.Name, fshelper.HelperDir)
		}
		return path.Join(fshelper.HelperDir, digest, fshelper.HelperName), nil
	}
	return "", nil
}

func isHexDigest(s string) bool {
	if len(s) != 16 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
