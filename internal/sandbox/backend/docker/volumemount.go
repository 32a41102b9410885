package docker

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"fmt"
	"path"
	"strings"

	"github.com/moby/moby/api/types/mount"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
)

// ValidateVolumes checks volume mounts for a workspace whose root is root
// ("" skips the checks against the root): every name is non-empty; every
// target is absolute and clean, used by one mount only, neither the root
// nor a directory containing it, and clear of the file helper's
// directory. The first problem is a *VolumeMountError.
func ValidateVolumes(root string, vols []spec.VolumeMount) error {
	seen := map[string]string{}
	for i, v := range vols {
		fail := func(format string, args ...any) error {
			return &spec.VolumeMountError{Index: i, Reason: fmt.Sprintf(format, args...)}
		}
		if v.Name == "" {
			return fail("volume mount %d (target %q): the volume name must not be empty", i, v.Target)
		}
		if strings.HasPrefix(v.Name, HelperVolumePrefix) {
			return fail("volume %s: volumes named %s* hold the provider's file helper and cannot be mounted into a workspace", v.Name, HelperVolumePrefix)
		}
		t := v.Target
		if !path.IsAbs(t) || path.Clean(t) != t {
			return fail("volume %s: target %q must be an absolute, clean path inside the container", v.Name, t)
		}
		if other, dup := seen[t]; dup {
			return fail("volume %s: target %s is already the target of volume %s; each volume needs its own target", v.Name, t, other)
		}
		seen[t] = v.Name
		switch {
		case root != "" && t == root:
			return fail("volume %s: target %s is the workspace root itself; mount it below the root, such as %s", v.Name, t, path.Join(root, "data"))
		case root != "" && within(root, t):
			return fail("volume %s: target %s contains the workspace root %s; mount it below the root or elsewhere", v.Name, t, root)
		case t == fshelper.HelperDir || within(t, fshelper.HelperDir) || within(fshelper.HelperDir, t):
			return fail("volume %s: target %s overlaps the file helper's directory %s, which the provider manages", v.Name, t, fshelper.HelperDir)
		}
	}
	return nil
}

// within reports whether p lies strictly below dir (both clean and
// absolute).
func within(p, dir string) bool {
	if dir == "/" {
		return p != "/"
	}
	return strings.HasPrefix(p, dir+"/")
}

// volumeMounts is the HostConfig.Mounts of the volume mounts, in order.
// NoCopy is set: Docker must never copy the image's files at the target
// into the volume (it may be a bucket).
func volumeMounts(vols []spec.VolumeMount) []mount.Mount {
	if len(vols) == 0 {
		return nil
	}
	out := make([]mount.Mount, 0, len(vols))
	for _, v := range vols {
		out = append(out, mount.Mount{
			Type: mount.TypeVolume, Source: v.Name, Target: v.Target, ReadOnly: v.ReadOnly,
			VolumeOptions: &mount.VolumeOptions{NoCopy: true},
		})
	}
	return out
}

// checkVolumesExist returns a *MissingVolumeError for the first volume the
// daemon does not have.
func (d *Daemon) checkVolumesExist(ctx context.Context, vols []spec.VolumeMount) error {
	for _, v := range vols {
		_, found, err := d.inspectVolume(ctx, v.Name)
		if err != nil {
			return err
		}
		if !found {
			return &spec.MissingVolumeError{Name: v.Name}
		}
	}
	return nil
}
