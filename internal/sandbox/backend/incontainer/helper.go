package incontainer

import (
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

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
)

// HelperEnv names an environment variable holding the path of the helper
// binary to copy into containers, overriding the provider's own executable
// (see the package doc).
const HelperEnv = "SANDBOX_FS_HELPER"

// Helper is the host file copied into containers as the file helper.
type Helper struct {
	// Path is the host path of the binary.
	Path string
	// Digest is the first 16 hex digits of its SHA-256.
	Digest string
	// Machine is its ELF machine (CPU architecture).
	Machine elf.Machine
}

// ContainerPath is where the helper lives inside a container.
func (h Helper) ContainerPath() string {
	return path.Join(fshelper.HelperDir, h.Digest, fshelper.HelperName)
}

// Open opens the binary and returns its size.
func (h Helper) Open() (*os.File, int64, error) {
	f, err := os.Open(h.Path)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

var (
	helperOnce sync.Once
	helperBin  Helper
	helperErr  error
)

// FindHelper locates the helper binary once per process: $SANDBOX_FS_HELPER
// when set, else the running executable. It must be a statically linked
// Linux ELF executable (no program interpreter), since it runs in
// containers whose C library is unknown.
func FindHelper() (Helper, error) {
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

func inspectHelper(p, from string) (Helper, error) {
	f, err := elf.Open(p)
	if err != nil {
		return Helper{}, fmt.Errorf("container workspaces copy a static Linux helper into each container; %s (%s) is not a Linux executable (%w): "+
			"set %s to a binary built with `CGO_ENABLED=0 GOOS=linux go build ./cmd/sandbox-fs-helper`", from, p, err, HelperEnv)
	}
	defer f.Close()
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			return Helper{}, fmt.Errorf("container workspaces copy a static Linux helper into each container; %s (%s) is dynamically linked: "+
				"build the provider with CGO_ENABLED=0, or set %s to a binary built with `CGO_ENABLED=0 go build ./cmd/sandbox-fs-helper`", from, p, HelperEnv)
		}
	}
	r, err := os.Open(p)
	if err != nil {
		return Helper{}, err
	}
	defer r.Close()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return Helper{}, err
	}
	return Helper{Path: p, Digest: hex.EncodeToString(h.Sum(nil))[:16], Machine: f.Machine}, nil
}

// ArchMatches reports whether a helper built for m runs on a host whose
// architecture is named arch (Docker's "x86_64", Kubernetes' "amd64", ...).
func ArchMatches(m elf.Machine, arch string) bool {
	switch m {
	case elf.EM_X86_64:
		return arch == "x86_64" || arch == "amd64"
	case elf.EM_AARCH64:
		return arch == "aarch64" || arch == "arm64"
	}
	return true
}

// HelperCache remembers, for the life of the process, in which containers
// the helper is known to answer. One cache serves every workspace of a
// kind; the zero value is ready to use.
type HelperCache struct {
	mu        sync.Mutex
	known     map[string]string // container key -> helper path
	installMu sync.Mutex        // serialises checks and installs
}

// Forget drops what the cache knows of a container (it was removed).
func (c *HelperCache) Forget(key string) {
	c.mu.Lock()
	delete(c.known, key)
	c.mu.Unlock()
}

// remember records that the helper at p answers in the container key.
func (c *HelperCache) remember(key, p string) {
	c.mu.Lock()
	if c.known == nil {
		c.known = map[string]string{}
	}
	c.known[key] = p
	c.mu.Unlock()
}

func (c *HelperCache) lookup(key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.known[key]
	return p, ok
}

// ensure makes sure the helper is in w's container and answers, installing
// it when it is not, and returns its path there.
func (c *HelperCache) ensure(ctx context.Context, w *Workspace) (string, error) {
	if p, ok := c.lookup(w.key); ok {
		return p, nil
	}
	// One check (and install) at a time, so that concurrent first uses in
	// a new process never copy the binary over one that is running.
	c.installMu.Lock()
	defer c.installMu.Unlock()
	if p, ok := c.lookup(w.key); ok {
		return p, nil
	}
	h, err := FindHelper()
	if err != nil {
		return "", err
	}
	p := h.ContainerPath()
	if w.hooks.Protected != nil {
		q, err := w.hooks.Protected(ctx, h)
		if err != nil {
			return "", fmt.Errorf("%s: %w", w.r.Name(), err)
		}
		if q != "" {
			// Never installed: the copy is read-only, and one the agent
			// could have placed elsewhere is not to be run.
			if ok, err := answers(ctx, w.r, q); err != nil || !ok {
				if err != nil {
					return "", err
				}
				return "", w.helperBroken(ctx, h, q)
			}
			c.remember(w.key, q)
			return q, nil
		}
	}
	ok, err := answers(ctx, w.r, p)
	if err != nil {
		return "", err
	}
	if !ok {
		if err := install(ctx, w.r, h); err != nil {
			return "", err
		}
		if ok, err = answers(ctx, w.r, p); !ok || err != nil {
			return "", w.helperBroken(ctx, h, p)
		}
	}
	c.remember(w.key, p)
	return p, nil
}

// answers reports whether the helper at p runs; a stopped container is an
// error wrapping backend.ErrStopped (nothing is installed into it).
func answers(ctx context.Context, r Runner, p string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, QuickTimeout)
	defer cancel()
	res, err := r.Run(ctx, Proc{Argv: []string{p, fshelper.OpVersion}, User: "0:0", Complete: completeResponse,
		Limit: MaxAnswerBytes, Strict: true})
	if errors.Is(err, backend.ErrStopped) {
		return false, err
	}
	if err != nil || res.ExitCode != 0 {
		return false, nil //nolint:nilerr // a helper that does not run is installed again, not an error
	}
	resp, err := decodeAnswer(res.Stdout)
	return err == nil && resp.Version == fshelper.Version, nil
}

// install copies the helper into the container: by the Runner's own means
// when it has them, else (or when they fail) streamed through a shell.
func install(ctx context.Context, r Runner, h Helper) error {
	var first error
	if in, ok := r.(Installer); ok {
		if first = in.InstallHelper(ctx, h); first == nil {
			return nil
		}
	}
	err := installByShell(ctx, r, h)
	switch {
	case err == nil:
		return nil
	case first != nil:
		return fmt.Errorf("copying the file helper into %s: %w (through a shell: %w)", r.Name(), first, err)
	default:
		return fmt.Errorf("copying the file helper into %s through a shell: %w", r.Name(), err)
	}
}

// InstallByShell streams the helper into the container r runs in, at
// h.ContainerPath(), through `sh -c` (see installByShell). Kinds that fill
// a protected helper directory through a container of their own use it.
func InstallByShell(ctx context.Context, r Runner, h Helper) error { return installByShell(ctx, r, h) }

// installByShell streams the helper into the container on the stdin of
// `sh -c`: written to a temporary name, made executable, then renamed
// into place, so a half-written binary is never run.
func installByShell(ctx context.Context, r Runner, h Helper) error {
	f, _, err := h.Open()
	if err != nil {
		return err
	}
	defer f.Close()
	dir := path.Join(fshelper.HelperDir, h.Digest)
	final := path.Join(dir, fshelper.HelperName)
	tmp := final + ".tmp"
	script := "umask 022 && mkdir -p " + dir + " && cat > " + tmp + " && chmod 0755 " + tmp + " && mv -f " + tmp + " " + final
	res, err := r.Run(ctx, Proc{Argv: []string{"sh", "-c", script}, User: "0:0", Stdin: f, Limit: 64 << 10})
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("exit code %d: %s", res.ExitCode, strings.TrimSpace(string(res.Stderr)))
	}
	return nil
}

// completeResponse reports whether stdout is one whole helper Response,
// which the helper prints only when it exits 0.
func completeResponse(stdout []byte) bool {
	var r fshelper.Response
	return json.Unmarshal(stdout, &r) == nil
}

// helperCalls counts the helper operations run by this process, in all
// and per container key (a *atomic.Int64 per key).
var (
	helperCalls      atomic.Int64
	helperCallsByKey sync.Map
)

// countCall counts one helper operation on the workspace's container.
func (w *Workspace) countCall() {
	helperCalls.Add(1)
	c, _ := helperCallsByKey.LoadOrStore(w.key, new(atomic.Int64))
	if n, ok := c.(*atomic.Int64); ok {
		n.Add(1)
	}
}

// HelperCalls returns how many file helper operations (each one process
// started in a container) this process has run, so tests can bound the
// round trips of an operation whatever its size.
func HelperCalls() int64 { return helperCalls.Load() }

// HelperCallsTo returns how many of them ran in the container whose key is
// key, so a test running beside others counts only its own.
func HelperCallsTo(key string) int64 {
	c, _ := helperCallsByKey.Load(key)
	if n, ok := c.(*atomic.Int64); ok {
		return n.Load()
	}
	return 0
}
