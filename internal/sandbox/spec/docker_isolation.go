package spec

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	units "github.com/docker/go-units"
)

// DockerIsolation is what confines a workspace container: resource limits and
// hardening. The zero value is Docker's defaults (no limit, every default
// capability); the provider's defaults are DefaultIsolation.
type DockerIsolation struct {
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
	Ulimits map[string]DockerUlimit
	// NoNewPrivileges sets no-new-privileges: a setuid binary runs with
	// the caller's privileges.
	NoNewPrivileges bool
	// CapAdd and CapDrop change DockerBaselineCaps, the only capabilities the
	// container has otherwise (see DockerCaps).
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

// DockerUlimit is a soft and a hard limit.
type DockerUlimit struct{ Soft, Hard int64 }

// DockerBaselineCaps are the capabilities the provider's own operations need in
// a container whose capabilities are all dropped: the file helper runs as
// root and sets groups (CHOWN), writes into directories root does not own
// (DAC_OVERRIDE) and sets modes of files root does not own (FOWNER), as
// entries owned by the workspace's users are. Nothing else the provider
// runs in the container needs a capability: docker exec --user switches
// users outside it, and the account tools write files root owns.
var DockerBaselineCaps = []string{"CHOWN", "DAC_OVERRIDE", "FOWNER"}

// dockerDefaultCaps are the capabilities Docker grants by default.
var dockerDefaultCaps = []string{"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
	"NET_BIND_SERVICE", "NET_RAW", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"}

// KnownDockerCaps are the Linux capability names (without CAP_), plus ALL.
var KnownDockerCaps = []string{"ALL", "AUDIT_CONTROL", "AUDIT_READ", "AUDIT_WRITE", "BLOCK_SUSPEND", "BPF", "CHECKPOINT_RESTORE",
	"CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "IPC_LOCK", "IPC_OWNER", "KILL", "LEASE",
	"LINUX_IMMUTABLE", "MAC_ADMIN", "MAC_OVERRIDE", "MKNOD", "NET_ADMIN", "NET_BIND_SERVICE", "NET_BROADCAST",
	"NET_RAW", "PERFMON", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYSLOG", "SYS_ADMIN", "SYS_BOOT", "SYS_CHROOT",
	"SYS_MODULE", "SYS_NICE", "SYS_PACCT", "SYS_PTRACE", "SYS_RAWIO", "SYS_RESOURCE", "SYS_TIME", "SYS_TTY_CONFIG",
	"WAKE_ALARM"}

// NormalizeDockerCap returns the capability name upper-cased without "CAP_", or
// an error naming it when Linux has no such capability.
func NormalizeDockerCap(c string) (string, error) {
	n := strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(c)), "CAP_")
	if !slices.Contains(KnownDockerCaps, n) {
		return "", fmt.Errorf("%q is not a Linux capability (such as \"NET_BIND_SERVICE\" or \"SYS_PTRACE\")", c)
	}
	return n, nil
}

// ParseDockerSize reads a size as Docker's command line does ("64m", "1g",
// "512k", "1048576"; binary units, case-insensitive).
func ParseDockerSize(s string) (int64, error) {
	n, err := units.RAMInBytes(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a size: expected a number of bytes with an optional unit b, k, m, g or t (\"64m\", \"1g\")", s)
	}
	return n, nil
}

// FormatDockerSize writes n bytes in the largest unit that divides it ("64m").
func FormatDockerSize(n int64) string {
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

// ParseDockerUlimit reads "soft:hard" or one number for both; name must be a
// ulimit Docker knows.
func ParseDockerUlimit(name, value string) (DockerUlimit, error) {
	u, err := units.ParseUlimit(name + "=" + value)
	if err != nil {
		return DockerUlimit{}, fmt.Errorf("ulimit %s = %q: %w (expected \"soft:hard\" or one number)", name, value, err)
	}
	return DockerUlimit{Soft: u.Soft, Hard: u.Hard}, nil
}

// String is "soft:hard".
func (u DockerUlimit) String() string { return fmt.Sprintf("%d:%d", u.Soft, u.Hard) }

// DockerCaps returns the capabilities a container gets: BaselineCaps and add
// (SYS_ADMIN too with FUSE) minus drop; a drop of "ALL" leaves add alone,
// and an add of "ALL" is every capability (minus drop, see HostCaps).
func DockerCaps(add, drop []string, fuse bool) []string {
	if slices.Contains(add, "ALL") {
		return []string{"ALL"}
	}
	var out []string
	if !slices.Contains(drop, "ALL") {
		out = append(out, DockerBaselineCaps...)
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
		if !slices.Contains(DockerBaselineCaps, c) && (!fuse || c != "SYS_ADMIN") {
			add = append(add, c)
		}
	}
	for _, c := range DockerBaselineCaps {
		if !slices.Contains(caps, c) {
			drop = append(drop, c)
		}
	}
	slices.Sort(add)
	slices.Sort(drop)
	return add, drop
}

// DockerHostCaps are Docker's CapAdd and CapDrop for add and drop: every
// capability dropped, then Caps added; or, when add holds "ALL", every
// capability but those of drop.
func DockerHostCaps(add, drop []string, fuse bool) (hcAdd, hcDrop []string) {
	if slices.Contains(add, "ALL") {
		d := slices.DeleteFunc(slices.Clone(drop), func(c string) bool { return c == "ALL" })
		slices.Sort(d)
		return []string{"ALL"}, d
	}
	return DockerCaps(add, drop, fuse), []string{"ALL"}
}

// ReadDockerCaps is the canonical cap_add and cap_drop of Docker's CapAdd and
// CapDrop; a container created without dropping every capability has
// Docker's default set changed by them.
func ReadDockerCaps(hcAdd, hcDrop []string, fuse bool) (add, drop []string) {
	hcAdd, hcDrop = NormalizeDockerCaps(hcAdd), NormalizeDockerCaps(hcDrop)
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

// CanonicalDockerCaps returns the one spelling of cap_add and cap_drop that
// gives the same capabilities, so two spellings compare equal.
func CanonicalDockerCaps(add, drop []string, fuse bool) ([]string, []string) {
	a, d := DockerHostCaps(NormalizeDockerCaps(add), NormalizeDockerCaps(drop), fuse)
	return ReadDockerCaps(a, d, fuse)
}

// DockerCPUs converts a number of CPUs to NanoCPUs.
func DockerCPUs(n float64) int64 { return int64(math.Round(n * 1e9)) }

// NormalizeDockerCaps upper-cases capability names, drops "CAP_" and sorts
// them without duplicates.
func NormalizeDockerCaps(caps []string) []string {
	out := make([]string, 0, len(caps))
	for _, c := range caps {
		out = append(out, strings.TrimPrefix(strings.ToUpper(c), "CAP_"))
	}
	slices.Sort(out)
	return slices.Compact(out)
}
