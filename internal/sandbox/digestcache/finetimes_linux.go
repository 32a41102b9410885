//go:build linux

package digestcache

import (
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Filesystems with multigrain timestamps since Linux 6.13: once a file's
// times were read by stat, its next change gets a fine-grained change time,
// so it never keeps the time that was read.
var fineTimeFS = map[int64]bool{
	0xEF53:     true, // ext2/3/4
	0x58465342: true, // XFS
	0x9123683E: true, // Btrfs
	0x01021994: true, // tmpfs
}

var fineKernel = sync.OnceValue(func() bool {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return false
	}
	return kernelAtLeast(unix.ByteSliceToString(u.Release[:]), 6, 13)
})

// kernelAtLeast reports whether the release string ("6.18.4-foo") names
// major.minor or later.
func kernelAtLeast(release string, major, minor int) bool {
	parts := strings.SplitN(release, ".", 3)
	if len(parts) < 2 {
		return false
	}
	maj, err1 := strconv.Atoi(parts[0])
	mnr := parts[1]
	if i := strings.IndexFunc(mnr, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		mnr = mnr[:i]
	}
	mn, err2 := strconv.Atoi(mnr)
	if err1 != nil || err2 != nil {
		return false
	}
	return maj > major || (maj == major && mn >= minor)
}

// FineTimes reports whether the open file fd, whose stat is st, lies on a
// filesystem whose change times move on every change made after they were
// read (multigrain timestamps), which StoreWritten needs. A change time
// without nanoseconds means times of one-second resolution (an ext2 driver
// or small inodes share ext4's magic number): never fine.
func FineTimes(fd int, st Stat) bool {
	if !fineKernel() || st.CtimeNs%1e9 == 0 {
		return false
	}
	var fs unix.Statfs_t
	if unix.Fstatfs(fd, &fs) != nil {
		return false
	}
	return fineTimeFS[int64(fs.Type)] //nolint:unconvert // Type's width differs by architecture
}
