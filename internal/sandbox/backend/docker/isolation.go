package docker

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
)

// memorySwap is the MemorySwap to give Docker.
func memorySwap(iso spec.DockerIsolation) int64 {
	if iso.MemorySwap == 0 {
		return iso.Memory
	}
	return iso.MemorySwap
}

// noNewPrivileges is the security option of Isolation.NoNewPrivileges.
const noNewPrivileges = "no-new-privileges:true"

// rootTmpfsOptions are the mount options of the Disk tmpfs at the root:
// programs may run from it, unlike Docker's default tmpfs.
func rootTmpfsOptions(size int64) string {
	return "rw,exec,nosuid,nodev,mode=755,size=" + strconv.FormatInt(size, 10)
}

// applyIsolation sets s.Isolation on the container configuration.
func applyIsolation(s Spec, cfg *container.Config, hc *container.HostConfig) {
	iso := s.Isolation
	hc.Memory, hc.NanoCPUs = iso.Memory, iso.NanoCPUs
	if iso.Memory > 0 {
		hc.MemorySwap = memorySwap(iso)
	}
	if iso.PidsLimit > 0 {
		hc.PidsLimit = &iso.PidsLimit
	}
	hc.ShmSize = iso.ShmSize
	for p, o := range iso.Tmpfs {
		if hc.Tmpfs == nil {
			hc.Tmpfs = map[string]string{}
		}
		hc.Tmpfs[p] = o
	}
	if iso.Disk > 0 {
		if hc.Tmpfs == nil {
			hc.Tmpfs = map[string]string{}
		}
		hc.Tmpfs[s.Root] = rootTmpfsOptions(iso.Disk)
	}
	for _, name := range slices.Sorted(maps.Keys(iso.Ulimits)) {
		u := iso.Ulimits[name]
		hc.Ulimits = append(hc.Ulimits, &container.Ulimit{Name: name, Soft: u.Soft, Hard: u.Hard})
	}
	hc.CapAdd, hc.CapDrop = spec.DockerHostCaps(spec.NormalizeDockerCaps(iso.CapAdd), spec.NormalizeDockerCaps(iso.CapDrop), s.FUSE)
	if iso.NoNewPrivileges {
		hc.SecurityOpt = append(hc.SecurityOpt, noNewPrivileges)
	}
	hc.SecurityOpt = append(hc.SecurityOpt, iso.SecurityOpt...)
	if iso.Init {
		hc.Init = &iso.Init
	}
	cfg.User = iso.User
	hc.Runtime = iso.Runtime
	if iso.ReadOnlyRootfs {
		hc.ReadonlyRootfs = true
		// What must stay writable becomes an anonymous volume, removed
		// with the container, unless a mount already covers it.
		// The helper's own directory is a read-only mount already.
		for _, dir := range []string{s.Root, "/tmp", fshelper.DigestDir} {
			if _, ok := hc.Tmpfs[dir]; ok || boundAt(s.Grants, dir) || slices.ContainsFunc(s.Volumes, func(v spec.VolumeMount) bool { return v.Target == dir }) {
				continue
			}
			hc.Mounts = append(hc.Mounts, mount.Mount{Type: mount.TypeVolume, Target: dir})
		}
	}
}

// readIsolation reads Isolation back from a container's configuration;
// root is the workspace root, defaultRuntime the daemon's and named the
// runtime the container was created naming ("": none). The daemon's
// default reads back as "" unless it was named.
func readIsolation(cfg *container.Config, hc *container.HostConfig, root, defaultRuntime, named string, fuse bool) spec.DockerIsolation {
	var iso spec.DockerIsolation
	if cfg != nil {
		iso.User = cfg.User
	}
	if hc == nil {
		return iso
	}
	iso.Memory, iso.NanoCPUs = hc.Memory, hc.NanoCPUs
	if hc.MemorySwap != hc.Memory && hc.Memory > 0 {
		iso.MemorySwap = hc.MemorySwap
	}
	if hc.PidsLimit != nil && *hc.PidsLimit > 0 {
		iso.PidsLimit = *hc.PidsLimit
	}
	if hc.ShmSize != 64<<20 {
		iso.ShmSize = hc.ShmSize
	}
	for p, o := range hc.Tmpfs {
		if p == root {
			iso.Disk = tmpfsSize(o)
			continue
		}
		if iso.Tmpfs == nil {
			iso.Tmpfs = map[string]string{}
		}
		iso.Tmpfs[p] = o
	}
	for _, u := range hc.Ulimits {
		if iso.Ulimits == nil {
			iso.Ulimits = map[string]spec.DockerUlimit{}
		}
		iso.Ulimits[u.Name] = spec.DockerUlimit{Soft: u.Soft, Hard: u.Hard}
	}
	iso.CapAdd, iso.CapDrop = spec.ReadDockerCaps(hc.CapAdd, hc.CapDrop, fuse)
	for _, o := range hc.SecurityOpt {
		switch {
		case o == "no-new-privileges" || o == noNewPrivileges || o == "no-new-privileges=true":
			iso.NoNewPrivileges = true
		case fuse && (o == "apparmor:unconfined" || o == "apparmor=unconfined"):
		default:
			iso.SecurityOpt = append(iso.SecurityOpt, o)
		}
	}
	iso.Init = hc.Init != nil && *hc.Init
	if hc.Runtime != defaultRuntime || (named != "" && hc.Runtime == named) {
		iso.Runtime = hc.Runtime
	}
	iso.ReadOnlyRootfs = hc.ReadonlyRootfs
	return iso
}

// tmpfsSize reads the size= option of tmpfs mount options (0: none).
func tmpfsSize(opts string) int64 {
	for _, o := range strings.Split(opts, ",") {
		if v, ok := strings.CutPrefix(o, "size="); ok {
			n, _ := spec.ParseDockerSize(v)
			return n
		}
	}
	return 0
}
