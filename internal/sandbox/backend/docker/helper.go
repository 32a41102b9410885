package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/fshelper"
)

// HelperEnv names an environment variable holding the path of the helper
// binary to copy into containers, overriding the provider's own executable
// (see the package doc).
const HelperEnv = "SANDBOX_FS_HELPER"

// helperBinary is the host file copied into containers as the helper.
type helperBinary struct {
	path    string
	digest  string // first 16 hex digits of its SHA-256
	machine elf.Machine
}

var (
	helperOnce sync.Once
	helperBin  helperBinary
	helperErr  error
)

// findHelper locates the helper binary once per process: $SANDBOX_FS_HELPER
// when set, else the running executable. It must be a statically linked
// Linux ELF executable (no program interpreter), since it runs in
// containers whose C library is unknown.
func findHelper() (helperBinary, error) {
	helperOnce.Do(func() {
		p := os.Getenv(HelperEnv)
		from := HelperEnv
		if p == "" {
			from = "the provider executable"
			p, helperErr = os.Executable()
			if helperErr != nil {
				return
			}
		}
		helperBin, helperErr = inspectHelper(p, from)
	})
	return helperBin, helperErr
}

func inspectHelper(p, from string) (helperBinary, error) {
	f, err := elf.Open(p)
	if err != nil {
		return helperBinary{}, fmt.Errorf("docker workspaces copy a static Linux helper into each container; %s (%s) is not a Linux executable (%w): "+
			"set %s to a binary built with `CGO_ENABLED=0 GOOS=linux go build ./cmd/sandbox-fs-helper`", from, p, err, HelperEnv)
	}
	defer f.Close()
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			return helperBinary{}, fmt.Errorf("docker workspaces copy a static Linux helper into each container; %s (%s) is dynamically linked: "+
				"build the provider with CGO_ENABLED=0, or set %s to a binary built with `CGO_ENABLED=0 go build ./cmd/sandbox-fs-helper`", from, p, HelperEnv)
		}
	}
	r, err := os.Open(p)
	if err != nil {
		return helperBinary{}, err
	}
	defer r.Close()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return helperBinary{}, err
	}
	return helperBinary{path: p, digest: hex.EncodeToString(h.Sum(nil))[:16], machine: f.Machine}, nil
}

// containerPath is where the helper lives inside a container.
func (h helperBinary) containerPath() string {
	return path.Join(fshelper.HelperDir, h.digest, fshelper.HelperName)
}

// ensureHelper makes sure the helper is in the container and answers,
// copying it with the archive API when it is not; the result is cached per
// container for the life of the process.
func (d *Daemon) ensureHelper(ctx context.Context, containerID string) (string, error) {
	d.mu.Lock()
	p, ok := d.helpers[containerID]
	d.mu.Unlock()
	if ok {
		return p, nil
	}
	// One check (and install) at a time, so that concurrent first uses in
	// a new process never copy the binary over one that is running.
	d.installMu.Lock()
	defer d.installMu.Unlock()
	d.mu.Lock()
	p, ok = d.helpers[containerID]
	d.mu.Unlock()
	if ok {
		return p, nil
	}
	h, err := findHelper()
	if err != nil {
		return "", err
	}
	p = h.containerPath()
	ok, err = d.helperAnswers(ctx, containerID, p)
	if err != nil {
		return "", err
	}
	if !ok {
		if err := d.installHelper(ctx, containerID, h); err != nil {
			return "", err
		}
		if ok, err = d.helperAnswers(ctx, containerID, p); !ok || err != nil {
			return "", d.helperBroken(ctx, containerID, h)
		}
	}
	d.mu.Lock()
	d.helpers[containerID] = p
	d.mu.Unlock()
	return p, nil
}

// helperAnswers reports whether the helper at p runs; a stopped container
// is an error wrapping backend.ErrStopped (nothing is installed into it).
func (d *Daemon) helperAnswers(ctx context.Context, containerID, p string) (bool, error) {
	res, err := d.run(ctx, containerID, execSpec{argv: []string{p, fshelper.OpVersion}, user: "0:0"})
	if errors.Is(err, backend.ErrStopped) {
		return false, err
	}
	if err != nil || res.ExitCode != 0 {
		return false, nil //nolint:nilerr // a helper that does not run is installed again, not an error
	}
	var r fshelper.Response
	return json.Unmarshal(res.Stdout, &r) == nil && r.Version == fshelper.Version, nil
}

// helperBroken explains why an installed helper does not run.
func (d *Daemon) helperBroken(ctx context.Context, containerID string, h helperBinary) error {
	cli, err := d.api()
	if err == nil {
		info, ierr := cli.Info(ctx, client.InfoOptions{})
		if ierr == nil && !archMatches(h.machine, info.Info.Architecture) {
			return fmt.Errorf("the file helper %s is built for %s but the Docker daemon runs %s: set %s to a helper built for the daemon's architecture",
				h.path, h.machine, info.Info.Architecture, HelperEnv)
		}
	}
	msg := fmt.Sprintf("the file helper copied into container %s at %s does not run", short(containerID), h.containerPath())
	if c, found, ierr := d.inspect(ctx, containerID); ierr == nil && found && c.HostConfig != nil &&
		c.HostConfig.PidsLimit != nil && *c.HostConfig.PidsLimit > 0 {
		msg += fmt.Sprintf(": the container's process limit (pids_limit = %d) is probably reached, so docker exec cannot start "+
			"it; raise pids_limit, or run fewer processes at once in the container", *c.HostConfig.PidsLimit)
	}
	return errors.New(msg)
}

func archMatches(m elf.Machine, arch string) bool {
	switch m {
	case elf.EM_X86_64:
		return arch == "x86_64" || arch == "amd64"
	case elf.EM_AARCH64:
		return arch == "aarch64" || arch == "arm64"
	}
	return true
}

// installHelper copies the helper binary into the container (mode 0755,
// owned by root) through the archive API, streamed from the host file.
func (d *Daemon) installHelper(ctx context.Context, containerID string, h helperBinary) error {
	cli, err := d.api()
	if err != nil {
		return err
	}
	f, err := os.Open(h.path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	pr, pw := io.Pipe()
	go func() {
		tw := tar.NewWriter(pw)
		dir := path.Join(fshelper.HelperDir[1:], h.digest)
		err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: fshelper.HelperDir[1:] + "/", Mode: 0o755})
		if err == nil {
			err = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir + "/", Mode: 0o755})
		}
		if err == nil {
			err = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: dir + "/" + fshelper.HelperName, Mode: 0o755, Size: fi.Size()})
		}
		if err == nil {
			_, err = io.Copy(tw, f)
		}
		if err == nil {
			err = tw.Close()
		}
		pw.CloseWithError(err)
	}()
	_, err = cli.CopyToContainer(ctx, containerID, client.CopyToContainerOptions{DestinationPath: "/", Content: pr})
	pr.CloseWithError(err)
	if err == nil {
		return nil
	}
	// The archive API mounts the container's volumes once more, which
	// volume plugins may refuse while the container runs ("volume is
	// already mounted by this id"), as the Python SDK warns. Then the helper is
	// streamed through a shell in the container instead.
	if serr := d.installHelperByShell(ctx, containerID, h); serr != nil {
		return fmt.Errorf("copying the file helper into container %s: %w (through a shell: %w)", short(containerID), err, serr)
	}
	return nil
}

// installHelperByShell streams the helper into the container on the
// stdin of `sh -c`: written to a temporary name, made executable, then
// renamed into place, so a half-written binary is never run.
func (d *Daemon) installHelperByShell(ctx context.Context, containerID string, h helperBinary) error {
	f, err := os.Open(h.path)
	if err != nil {
		return err
	}
	defer f.Close()
	dir := path.Join(fshelper.HelperDir, h.digest)
	final := path.Join(dir, fshelper.HelperName)
	tmp := final + ".tmp"
	script := "umask 022 && mkdir -p " + dir + " && cat > " + tmp + " && chmod 0755 " + tmp + " && mv -f " + tmp + " " + final
	res, err := d.run(ctx, containerID, execSpec{argv: []string{"sh", "-c", script}, user: "0:0", stdin: f, limit: 64 << 10})
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("exit code %d: %s", res.ExitCode, strings.TrimSpace(string(res.Stderr)))
	}
	return nil
}

// helperCalls counts the helper operations run by this process.
var helperCalls atomic.Int64

// HelperCalls returns how many file helper operations (each one `docker
// exec`) this process has run, so tests can bound the round trips of an
// operation whatever its size.
func HelperCalls() int64 { return helperCalls.Load() }

// helper runs one helper operation on the workspace and decodes its
// response; a Response error comes back as an error wrapping the matching
// backend sentinel.
func (b *Backend) helper(ctx context.Context, op, rel, arg string, stdin io.Reader) (fshelper.Response, error) {
	helperCalls.Add(1)
	p, err := b.d.ensureHelper(ctx, b.id)
	if errors.Is(err, backend.ErrStopped) && changes(op) {
		// Only an apply changes anything: a stopped container is started
		// for it (a plan, which only reads, leaves it stopped).
		if serr := b.Start(ctx); serr != nil {
			return fshelper.Response{}, fmt.Errorf("%w; starting it failed: %w", err, serr)
		}
		p, err = b.d.ensureHelper(ctx, b.id)
	}
	if err != nil {
		return fshelper.Response{}, err
	}
	argv := []string{p, op, b.root, rel}
	if arg != "" {
		argv = append(argv, arg)
	}
	res, err := b.d.run(ctx, b.id, execSpec{argv: argv, user: "0:0", stdin: stdin})
	if err != nil {
		return fshelper.Response{}, err
	}
	var r fshelper.Response
	if res.ExitCode != 0 || json.Unmarshal(res.Stdout, &r) != nil {
		return fshelper.Response{}, fmt.Errorf("file helper %s %s in container %s exited with code %d: %s",
			op, rel, short(b.id), res.ExitCode, bytes.TrimSpace(append(res.Stderr, res.Stdout...)))
	}
	if r.Error != nil {
		return r, r.Error.Err()
	}
	return r, nil
}

// changes reports whether a helper operation changes the workspace; only
// such operations start a stopped container. An operation not listed here
// never does.
func changes(op string) bool {
	switch op {
	case fshelper.OpWrite, fshelper.OpMkdir, fshelper.OpChmod, fshelper.OpChgrp, fshelper.OpChown, fshelper.OpChownTree,
		fshelper.OpRemove, fshelper.OpRemoveAll, fshelper.OpRemoveTree, fshelper.OpHydrate, OpInitRoot:
		return true
	}
	return false
}
