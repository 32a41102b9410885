//go:build linux

package digestcache

import "golang.org/x/sys/unix"

// StatOf returns the Stat of st.
func StatOf(st *unix.Stat_t) Stat {
	return Stat{
		Dev: st.Dev, Ino: st.Ino, Size: st.Size, //nolint:unconvert // widths differ by architecture
		MtimeNs: st.Mtim.Nano(), CtimeNs: st.Ctim.Nano(),
	}
}
