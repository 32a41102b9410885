package hostsource

import (
	"fmt"
	"os"
	"syscall"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// checkLinks refuses a regular file with more than one link unless the
// policy allows hard links; child names it in the error ("" for the source
// itself).
func (p Policy) checkLinks(fi os.FileInfo, child string) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if p.AllowHardLinks || !ok || st.Nlink <= 1 {
		return nil
	}
	return hardLinkFault(child, uint64(st.Nlink)) //nolint:unconvert // Nlink is uint32 on some architectures
}

func hardLinkFault(child string, links uint64) *sourceFault {
	name := "the file"
	if child != "" {
		name = child
	}
	return fault(sandbox.ReasonHardLinkNotSupported, child, fmt.Errorf("%s has %d hard links, so its content may belong to a "+
		"file outside the working directory and every extra_path_grants entry; set allow_hard_links = true in the "+
		"provider block to copy it anyway", name, links))
}
