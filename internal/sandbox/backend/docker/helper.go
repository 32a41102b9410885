package docker

import (
	"archive/tar"
	"context"
	"fmt"
	"io"
	"path"

	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/incontainer"
)

// HelperEnv names an environment variable holding the path of the helper
// binary to copy into containers (see package incontainer).
const HelperEnv = incontainer.HelperEnv

// HelperCalls returns how many file helper operations (each one `docker
// exec`) this process has run, so tests can bound the round trips of an
// operation whatever its size.
func HelperCalls() int64 { return incontainer.HelperCalls() }

// HelperCallsTo returns how many of them ran in the container containerID.
func HelperCallsTo(containerID string) int64 { return incontainer.HelperCallsTo(containerID) }

// explainBroken says why the helper installed in the container may not
// run: built for another architecture than the daemon's, or the
// container's process limit reached.
func (b *Backend) explainBroken(ctx context.Context, h incontainer.Helper) string {
	if cli, err := b.d.api(); err == nil {
		info, ierr := cli.Info(ctx, client.InfoOptions{})
		if ierr == nil && !incontainer.ArchMatches(h.Machine, info.Info.Architecture) {
			return fmt.Sprintf("it is built for %s (%s) but the Docker daemon runs %s: set %s to a helper built for the daemon's architecture",
				h.Machine, h.Path, info.Info.Architecture, HelperEnv)
		}
	}
	if c, found, ierr := b.inspect(ctx); ierr == nil && found && c.HostConfig != nil &&
		c.HostConfig.PidsLimit != nil && *c.HostConfig.PidsLimit > 0 {
		return fmt.Sprintf("the container's process limit (pids_limit = %d) is probably reached, so docker exec cannot start "+
			"it; raise pids_limit, or run fewer processes at once in the container", *c.HostConfig.PidsLimit)
	}
	return ""
}

// InstallHelper copies the helper binary into the container (mode 0755,
// owned by root) through the archive API, streamed from the host file. The
// archive API mounts the container's volumes once more, which volume
// plugins may refuse while the container runs ("volume is already mounted
// by this id"), as the Python SDK warns; the helper is then streamed
// through a shell instead (package incontainer).
func (r containerRunner) InstallHelper(ctx context.Context, h incontainer.Helper) error {
	return r.copyHelper(ctx, h, false)
}

// copyHelper copies the helper (mode 0755, owned by root) to its path
// below fshelper.HelperDir through the archive API; with complete, an
// empty marker file follows it in the same archive (see
// ensureHelperVolume).
func (r containerRunner) copyHelper(ctx context.Context, h incontainer.Helper, complete bool) error {
	cli, err := r.d.api()
	if err != nil {
		return err
	}
	f, size, err := h.Open()
	if err != nil {
		return err
	}
	defer f.Close()
	pr, pw := io.Pipe()
	go func() {
		tw := tar.NewWriter(pw)
		dir := path.Join(fshelper.HelperDir[1:], h.Digest)
		err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: fshelper.HelperDir[1:] + "/", Mode: 0o755})
		if err == nil {
			err = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir + "/", Mode: 0o755})
		}
		if err == nil {
			err = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: dir + "/" + fshelper.HelperName, Mode: 0o755, Size: size})
		}
		if err == nil {
			_, err = io.Copy(tw, f)
		}
		if err == nil && complete {
			err = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: dir + "/" + helperComplete, Mode: 0o444})
		}
		if err == nil {
			err = tw.Close()
		}
		pw.CloseWithError(err)
	}()
	_, err = cli.CopyToContainer(ctx, r.id, client.CopyToContainerOptions{DestinationPath: "/", Content: pr})
	pr.CloseWithError(err)
	return err
}
