package docker

import (
	"encoding/json"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
)

type inspected = container.InspectResponse

// notOwnReason says why container c is not a workspace container this
// provider created, or "" when it is one. Labels alone prove nothing
// (anyone can copy them onto a container), so c must also be configured as
// the provider configures its containers, as the daemon reports it:
//
//   - its LabelWorkspaceID is a UUID in canonical form, its LabelRoot an
//     absolute clean path, and its LabelSpec parses;
//   - the labels were given to c itself, not inherited from its image (a
//     container run from an image committed from a workspace);
//   - the file helper volume is mounted as the provider mounts it: a named
//     volume HelperVolumePrefix+<16 hex digits> at fshelper.HelperDir,
//     read-only, with nocopy, and that volume exists labelled
//     LabelHelperVolume=<the same digits> (volLabels, volFound);
//   - every mount of c is one the provider made from what LabelSpec
//     records, and every one it records is there: each volume at its
//     target with its read-only flag, each path grant's bind mount,
//     anonymous volumes only at the root, /tmp and the digest cache of a
//     read-only root file system; no -v binds and no volumes-from;
//   - its published ports are exactly LabelSpec's exposed ports, each on
//     127.0.0.1;
//   - every environment variable LabelSpec names is set in c.
//
// A copy made by hand with `docker run --label ...`, even with every label
// copied, fails at least the helper mount; one that also copies the
// mounts, ports and environment by hand is no casual copy.
func notOwnReason(c inspected, imgLabels, volLabels map[string]string, volFound bool) string {
	if c.Config == nil || c.HostConfig == nil {
		return "the daemon reports no configuration for it"
	}
	labels := c.Config.Labels
	id := labels[LabelWorkspaceID]
	if u, err := uuid.Parse(id); err != nil || u.String() != id {
		return fmt.Sprintf("its label %s=%q is not a workspace UUID", LabelWorkspaceID, id)
	}
	if iv, ok := imgLabels[LabelWorkspaceID]; ok && iv == id {
		return fmt.Sprintf("its label %s is inherited from its image (a container run from an image committed from a workspace)", LabelWorkspaceID)
	}
	if root := labels[LabelRoot]; !path.IsAbs(root) || path.Clean(root) != root {
		return fmt.Sprintf("its label %s=%q is not an absolute, clean path", LabelRoot, root)
	}
	var spec specLabel
	if err := json.Unmarshal([]byte(labels[LabelSpec]), &spec); err != nil {
		return fmt.Sprintf("its label %s is missing or does not parse", LabelSpec)
	}
	if why := notOwnHelperMount(c, volLabels, volFound); why != "" {
		return why
	}
	if why := notOwnMounts(c, spec, labels[LabelRoot]); why != "" {
		return why
	}
	if why := notOwnPorts(c.HostConfig, spec); why != "" {
		return why
	}
	set := map[string]bool{}
	for _, kv := range c.Config.Env {
		k, _, _ := strings.Cut(kv, "=")
		set[k] = true
	}
	for _, k := range append(append([]string{}, spec.Environment...), spec.SecretEnvironment...) {
		if !set[k] {
			return fmt.Sprintf("its label %s names the environment variable %s, which it does not have", LabelSpec, k)
		}
	}
	return ""
}

// helperMountOf returns the mount at fshelper.HelperDir c was created with.
func helperMountOf(hc *container.HostConfig) (mount.Mount, bool) {
	if hc == nil {
		return mount.Mount{}, false
	}
	for _, m := range hc.Mounts {
		if m.Target == fshelper.HelperDir {
			return m, true
		}
	}
	return mount.Mount{}, false
}

func notOwnHelperMount(c inspected, volLabels map[string]string, volFound bool) string {
	m, ok := helperMountOf(c.HostConfig)
	if !ok {
		return fmt.Sprintf("it has no file helper volume mounted at %s", fshelper.HelperDir)
	}
	digest := strings.TrimPrefix(m.Source, HelperVolumePrefix)
	if m.Type != mount.TypeVolume || !strings.HasPrefix(m.Source, HelperVolumePrefix) || !isHexDigest(digest) ||
		!m.ReadOnly || m.VolumeOptions == nil || !m.VolumeOptions.NoCopy || m.VolumeOptions.Subpath != "" {
		return fmt.Sprintf("its mount at %s is not the provider's read-only file helper volume", fshelper.HelperDir)
	}
	live := false
	for _, mp := range c.Mounts {
		if mp.Destination == fshelper.HelperDir {
			live = mp.Type == mount.TypeVolume && mp.Name == m.Source && !mp.RW
		}
	}
	if !live {
		return fmt.Sprintf("the daemon does not report %s mounted read-only at %s", m.Source, fshelper.HelperDir)
	}
	if !volFound || volLabels[LabelHelperVolume] != digest {
		return fmt.Sprintf("volume %s is missing or was not made by the provider (no label %s=%s)", m.Source, LabelHelperVolume, digest)
	}
	return ""
}

func notOwnMounts(c inspected, spec specLabel, root string) string {
	hc := c.HostConfig
	if len(hc.Binds) > 0 || len(hc.VolumesFrom) > 0 {
		return "it has binds or volumes-from, which the provider never gives a workspace"
	}
	vols := map[string]specVolume{}
	for _, v := range spec.Volumes {
		vols[v.Target] = v
	}
	binds := map[string]bool{}
	for _, g := range spec.Grants {
		if g.HostPath != nil {
			binds[g.Path] = true
		}
	}
	seen := 0
	for _, m := range hc.Mounts {
		switch {
		case m.Target == fshelper.HelperDir:
			continue
		case m.Type == mount.TypeVolume && m.Source == "":
			if !hc.ReadonlyRootfs || (m.Target != root && m.Target != "/tmp" && m.Target != fshelper.DigestDir) {
				return fmt.Sprintf("it has an anonymous volume at %s, which the provider did not make", m.Target)
			}
		case m.Type == mount.TypeVolume:
			v, ok := vols[m.Target]
			if !ok || v.Name != m.Source || v.ReadOnly != m.ReadOnly {
				return fmt.Sprintf("its volume %s at %s is not one its label %s records", m.Source, m.Target, LabelSpec)
			}
			seen++
		case m.Type == mount.TypeBind:
			if !grantBinds(spec, m) {
				return fmt.Sprintf("its bind mount at %s is not a path grant its label %s records", m.Target, LabelSpec)
			}
			seen++
		default:
			return fmt.Sprintf("it has a %s mount at %s, which the provider never makes", m.Type, m.Target)
		}
	}
	if seen != len(spec.Volumes)+len(binds) {
		return fmt.Sprintf("it lacks a volume or bind mount its label %s records", LabelSpec)
	}
	return ""
}

func grantBinds(spec specLabel, m mount.Mount) bool {
	for _, g := range spec.Grants {
		if g.HostPath != nil && *g.HostPath == m.Source && g.Path == m.Target && g.ReadOnly == m.ReadOnly {
			return true
		}
	}
	return false
}

func notOwnPorts(hc *container.HostConfig, spec specLabel) string {
	want := map[string]bool{}
	for _, p := range spec.ExposedPorts {
		want[strconv.Itoa(p)+"/tcp"] = true
	}
	if len(hc.PortBindings) != len(want) {
		return fmt.Sprintf("its published ports are not the exposed ports its label %s records", LabelSpec)
	}
	for port, bindings := range hc.PortBindings {
		if !want[port.String()] {
			return fmt.Sprintf("it publishes port %s, which its label %s does not record", port, LabelSpec)
		}
		for _, b := range bindings {
			if b.HostIP.String() != "127.0.0.1" {
				return fmt.Sprintf("it publishes port %s on %s; the provider publishes on 127.0.0.1 only", port, b.HostIP)
			}
		}
	}
	return ""
}
