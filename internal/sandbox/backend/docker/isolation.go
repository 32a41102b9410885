package docker

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	units "github.com/docker/go-units"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/fshelper"
)

// Isolation is what confines a workspace container: resource limits and
// hardening. The zero value is Docker's defaults (no limit, every default
// capability); the provider's defaults are DefaultIsolation.
type Isolation struct {
	// Memory is the hard memory limit in bytes (0: none). MemorySwap is
	// memory plus swap in bytes: 0 means equal to Memory (no swap), -1
	// unlimited swap.
	Memory, MemorySwap int64
	// NanoCPUs is the CPU quota in billionths of a CPU (0: none).
	NanoCPUs int64
	// PidsLimit caps the processes of the container (0: none).
	PidsLimit int64
	// Disk is the size limit in bytes of the workspace root, a tmpfs of
	// that size mounted at the root (0: none).
	Disk int64
	// ShmSize is the size of /dev/shm in bytes (0: Docker's 64 MiB).
	ShmSize int64
	// Tmpfs maps absolute paths to tmpfs mount options ("size=256m").
	Tmpfs map[string]string
	// Ulimits maps ulimit names ("nofile") to their soft and hard values.
	Ulimits map[string]Ulimit
	// NoNewPrivileges sets no-new-privileges: a setuid binary runs with
	// the caller's privileges.
	NoNewPrivileges bool
	// CapAdd and CapDrop change BaselineCaps, the only capabilities the
	// container has otherwise (see Caps).
	CapAdd, CapDrop []string
	// ReadOnlyRootfs mounts the image's filesystem read-only; the root,
	// /tmp and the file helper's directory stay writable (anonymous
	// volumes, or the Disk tmpfs at the root).
	ReadOnlyRootfs bool
	// SecurityOpt is passed to Docker as is ("seccomp=...", "apparmor=...").
	SecurityOpt []string
	// Init runs Docker's init as process 1, which reaps zombies.
	Init bool
	// User runs the container's long-lived process (and commands given no
	// user) as this user: a name the image has, or uid[:gid].
	User string
	// Runtime is the OCI runtime's name on the daemon ("": its default).
	Runtime string
}

// Ulimit is a soft and a hard limit.
type Ulimit struct{ Soft, Hard int64 }

// BaselineCaps are the capabilities the provider's own operations need in
// a container whose capabilities are all dropped: the file helper runs as
// root and sets groups (CHOWN), writes into directories root does not own
// (DAC_OVERRIDE) and sets modes of files root does not own (FOWNER), as
// entries owned by the workspace's users are. Nothing else the provider
// runs in the container needs a capability: docker exec --user switches
// users outside it, and the account tools write files root owns.
var BaselineCaps = []string{"CHOWN", "DAC_OVERRIDE", "FOWNER"}

// dockerDefaultCaps are the capabilities Docker grants by default.
var dockerDefaultCaps = []string{"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
	"NET_BIND_SERVICE", "NET_RAW", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"}

// KnownCaps are the Linux capability names (without CAP_), plus ALL.
var KnownCaps = []string{"ALL", "AUDIT_CONTROL", "AUDIT_READ", "AUDIT_WRITE", "BLOCK_SUSPEND", "BPF", "CHECKPOINT_RESTORE",
	"CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "IPC_LOCK", "IPC_OWNER", "KILL", "LEASE",
	"LINUX_IMMUTABLE", "MAC_ADMIN", "MAC_OVERRIDE", "MKNOD", "NET_ADMIN", "NET_BIND_SERVICE", "NET_BROADCAST",
	"NET_RAW", "PERFMON", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYSLOG", "SYS_ADMIN", "SYS_BOOT", "SYS_CHROOT",
	"SYS_MODULE", "SYS_NICE", "SYS_PACCT", "SYS_PTRACE", "SYS_RAWIO", "SYS_RESOURCE", "SYS_TIME", "SYS_TTY_CONFIG",
	"WAKE_ALARM"}

// NormalizeCap returns the capability name upper-cased without "CAP_", or
// an error naming it when Linux has no such capability.
func NormalizeCap(c string) (string, error) {
	n := strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(c)), "CAP_")
	if !slices.Contains(KnownCaps, n) {
		return "", fmt.Errorf("%q is not a Linux capability (such as \"NET_BIND_SERVICE\" or \"SYS_PTRACE\")", c)
	}
	return n, nil
}

// ParseSize reads a size as Docker's command line does ("64m", "1g",
// "512k", "1048576"; binary units, case-insensitive).
func ParseSize(s string) (int64, error) {
	n, err := units.RAMInBytes(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a size: expected a number of bytes with an optional unit b, k, m, g or t (\"64m\", \"1g\")", s)
	}
	return n, nil
}

// FormatSize writes n bytes in the largest unit that divides it ("64m").
func FormatSize(n int64) string {
	if n < 0 {
		return strconv.FormatInt(n, 10)
	}
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"t", 1 << 40}, {"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}} {
		if n != 0 && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// ParseUlimit reads "soft:hard" or one number for both; name must be a
// ulimit Docker knows.
func ParseUlimit(name, value string) (Ulimit, error) {
	u, err := units.ParseUlimit(name + "=" + value)
	if err != nil {
		return Ulimit{}, fmt.Errorf("ulimit %s = %q: %w (expected \"soft:hard\" or one number)", name, value, err)
	}
	return Ulimit{Soft: u.Soft, Hard: u.Hard}, nil
}

// String is "soft:hard".
func (u Ulimit) String() string { return fmt.Sprintf("%d:%d", u.Soft, u.Hard) }

// Caps returns the capabilities a container gets: BaselineCaps and add
// (SYS_ADMIN too with FUSE) minus drop; a drop of "ALL" leaves add alone,
// and an add of "ALL" is every capability (minus drop, see hostCaps).
func Caps(add, drop []string, fuse bool) []string {
	if slices.Contains(add, "ALL") {
		return []string{"ALL"}
	}
	var out []string
	if !slices.Contains(drop, "ALL") {
		out = append(out, BaselineCaps...)
	}
	out = append(out, add...)
	if fuse {
		out = append(out, "SYS_ADMIN")
	}
	out = slices.DeleteFunc(out, func(c string) bool { return slices.Contains(drop, c) && !slices.Contains(add, c) })
	slices.Sort(out)
	return slices.Compact(out)
}

// capsFromEffective is the canonical cap_add and cap_drop that give caps.
func capsFromEffective(caps []string, fuse bool) (add, drop []string) {
	if slices.Contains(caps, "ALL") {
		return []string{"ALL"}, nil
	}
	for _, c := range caps {
		if !slices.Contains(BaselineCaps, c) && (!fuse || c != "SYS_ADMIN") {
			add = append(add, c)
		}
	}
	for _, c := range BaselineCaps {
		if !slices.Contains(caps, c) {
			drop = append(drop, c)
		}
	}
	slices.Sort(add)
	slices.Sort(drop)
	return add, drop
}

// hostCaps are Docker's CapAdd and CapDrop for add and drop: every
// capability dropped, then Caps added; or, when add holds "ALL", every
// capability but those of drop.
func hostCaps(add, drop []string, fuse bool) (hcAdd, hcDrop []string) {
	if slices.Contains(add, "ALL") {
		d := slices.DeleteFunc(slices.Clone(drop), func(c string) bool { return c == "ALL" })
		slices.Sort(d)
		return []string{"ALL"}, d
	}
	return Caps(add, drop, fuse), []string{"ALL"}
}

// readCaps is the canonical cap_add and cap_drop of Docker's CapAdd and
// CapDrop; a container created without dropping every capability has
// Docker's default set changed by them.
func readCaps(hcAdd, hcDrop []string, fuse bool) (add, drop []string) {
	hcAdd, hcDrop = normalizeCaps(hcAdd), normalizeCaps(hcDrop)
	switch {
	case slices.Contains(hcAdd, "ALL"):
		return []string{"ALL"}, slices.DeleteFunc(hcDrop, func(c string) bool { return c == "ALL" })
	case slices.Contains(hcDrop, "ALL"):
		return capsFromEffective(hcAdd, fuse)
	}
	eff := slices.DeleteFunc(append(slices.Clone(dockerDefaultCaps), hcAdd...), func(c string) bool { return slices.Contains(hcDrop, c) })
	slices.Sort(eff)
	return capsFromEffective(slices.Compact(eff), fuse)
}

// CanonicalCaps returns the one spelling of cap_add and cap_drop that
// gives the same capabilities, so two spellings compare equal.
func CanonicalCaps(add, drop []string, fuse bool) ([]string, []string) {
	a, d := hostCaps(normalizeCaps(add), normalizeCaps(drop), fuse)
	return readCaps(a, d, fuse)
}

// CPUs converts a number of CPUs to NanoCPUs.
func CPUs(n float64) int64 { return int64(math.Round(n * 1e9)) }

// memorySwap is the MemorySwap to give Docker.
func (iso Isolation) memorySwap() int64 {
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
		hc.MemorySwap = iso.memorySwap()
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
	hc.CapAdd, hc.CapDrop = hostCaps(normalizeCaps(iso.CapAdd), normalizeCaps(iso.CapDrop), s.FUSE)
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
			if _, ok := hc.Tmpfs[dir]; ok || boundAt(s.Grants, dir) || slices.ContainsFunc(s.Volumes, func(v VolumeMount) bool { return v.Target == dir }) {
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
func readIsolation(cfg *container.Config, hc *container.HostConfig, root, defaultRuntime, named string, fuse bool) Isolation {
	var iso Isolation
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
			iso.Ulimits = map[string]Ulimit{}
		}
		iso.Ulimits[u.Name] = Ulimit{Soft: u.Soft, Hard: u.Hard}
	}
	iso.CapAdd, iso.CapDrop = readCaps(hc.CapAdd, hc.CapDrop, fuse)
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
			n, _ := ParseSize(v)
			return n
		}
	}
	return 0
}

func normalizeCaps(caps []string) []string {
	out := make([]string, 0, len(caps))
	for _, c := range caps {
		out = append(out, strings.TrimPrefix(strings.ToUpper(c), "CAP_"))
	}
	slices.Sort(out)
	return slices.Compact(out)
}
