package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/local"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

// MountCommandTimeout bounds each command a mount runs in the workspace
// (tool probes, mkdir, the mount helper itself, which daemonizes).
const MountCommandTimeout = 2 * time.Minute

// MountRequest is one in-container mount to apply to, or remove from, a
// workspace.
type MountRequest struct {
	// WorkspaceID is the workspace the mount belongs to.
	WorkspaceID string
	// Path is the entry's normalized workspace-relative path (the manifest
	// key); the mount lands there unless Mount.MountPath says otherwise.
	Path string
	// Mount is the mount entry. Its Strategy must be in_container.
	Mount *mount.Mount
	// SessionID stands in for the Python SDK's session id in generated names
	// (remote names, helper directories): 32 hex digits.
	SessionID string
}

// MountResult is what ApplyMount did.
type MountResult struct {
	// MountPath is the absolute mount path inside the workspace.
	MountPath string
	// Applied is the pattern's report: generated files and skip paths.
	Applied mount.Applied
}

// ResolveMountPath is the absolute path the mount of entry rel lands on in
// a workspace with the given root: the Python SDK's mount path resolution
// (design/sdk-model.md §5.2) followed by the manifest-level normalisation of targets
// inside the root (`..` that would climb above the root fails with reason
// escape_root).
func ResolveMountPath(root, rel string, m *mount.Mount) (string, error) {
	p, err := mount.ResolveMountPath(root, m.MountPath, path.Join(root, rel))
	if err != nil {
		return "", err
	}
	return mount.NormalizeMountTarget(root, p)
}

// CheckMountWorkspace checks that workspace id can take the in-container
// mount m: the credential boundary for its backend (a docker_volume mount
// is refused on a workspace) and, on Docker, the FUSE grant the pattern
// needs. Nothing is changed.
func (e *Engine) CheckMountWorkspace(ctx context.Context, id string, m *mount.Mount) (*Workspace, error) {
	w, err := e.Open(ctx, id)
	if err != nil {
		return nil, err
	}
	if m.Strategy.Type != mount.StrategyInContainer {
		return nil, mount.NewConfigError("docker-volume mounts are not supported by this sandbox backend",
			map[string]any{"mount_type": m.Type, "strategy_type": m.Strategy.Type, "sandbox_backend": MountBackend(w)})
	}
	if err := w.drv.checkMount(ctx, w, m); err != nil {
		return nil, err
	}
	return w, nil
}

// ErrNoFUSE is wrapped when an in-container mount is applied to a Docker
// workspace created without docker { fuse = true }.
var ErrNoFUSE = errors.New("the workspace's container cannot mount filesystems")

// CheckMountPath refuses mount paths that would hide or endanger what is
// already there: the workspace root itself and, on a local workspace
// (whose mount helper runs on the host), any path outside the root, which
// would mount over a host directory.
func CheckMountPath(w *Workspace, mp string) error {
	if mp == w.Root {
		return fmt.Errorf("mount path %s is the workspace root: mounting over it would hide the whole workspace; "+
			"mount below it (set path, or a mount_path inside the root)", mp)
	}
	if w.drv.mountsOnHost() && !strings.HasPrefix(mp, strings.TrimSuffix(w.Root, "/")+"/") {
		return fmt.Errorf("mount path %s is outside the workspace root %s: on a local workspace the mount helper runs "+
			"on the host, so this would mount over a host directory; use a path inside the workspace", mp, w.Root)
	}
	return nil
}

// ApplyMount mounts req.Mount in its workspace with the Python SDK's pattern
// commands (design/sdk-model.md §5.5): tool probe, mkdir, generated config written 0600,
// then the mount helper. Before that it refuses a mount path that is
// already a mount point or a directory with content (mounting would hide
// it); after it, the mount is listed once, so a wrong bucket, endpoint or
// key fails the apply instead of leaving a mount that answers I/O errors
// (the failed mount is removed again). Errors never carry a configured
// secret: values are replaced by REDACTED (design/sdk-model.md §5.7).
func (e *Engine) ApplyMount(ctx context.Context, req MountRequest) (MountResult, error) {
	w, err := e.CheckMountWorkspace(ctx, req.WorkspaceID, req.Mount)
	if err != nil {
		return MountResult{}, err
	}
	mp, err := ResolveMountPath(w.Root, req.Path, req.Mount)
	if err != nil {
		return MountResult{}, err
	}
	// Terraform creates resources in parallel: the check that nothing is
	// mounted at mp and the mount itself must not interleave with another
	// mount of the same path.
	unlock := e.lockMountPath(req.WorkspaceID, mp)
	defer unlock()
	if err := CheckMountPath(w, mp); err != nil {
		return MountResult{}, err
	}
	st, err := e.MountStatus(ctx, req.WorkspaceID, mp)
	if err != nil {
		return MountResult{}, err
	}
	if st.Listed {
		return MountResult{}, fmt.Errorf("%s is already a mount point (another mount resource at the same path, or "+
			"something mounted out of band): two mounts cannot share a path", mp)
	}
	res, err := w.Backend.Exec(ctx, sandbox.ExecRequest{Argv: []string{"ls", "-A", "--", mp}, Timeout: MountCommandTimeout})
	if err == nil && res.OK() && len(bytes.TrimSpace(res.Stdout)) > 0 {
		return MountResult{}, fmt.Errorf("%s is a directory with content: mounting over it would hide that content; "+
			"mount at an empty or new path", mp)
	}
	s := &mountSession{e: e, w: w}
	applied, err := mount.Apply(ctx, s, req.Mount, mp, req.SessionID)
	if err != nil {
		// Nothing was mounted at mp before: whatever is there now, and the
		// mount's own generated files, are this attempt's to remove.
		err = errors.Join(err, e.removeFailedMount(ctx, req))
		return MountResult{MountPath: mp, Applied: applied}, mount.Redact(err, mount.Secrets(req.Mount))
	}
	res, err = w.Backend.Exec(ctx, sandbox.ExecRequest{Argv: []string{"ls", "-A", "--", mp}, Timeout: MountCommandTimeout})
	if err != nil || !res.OK() {
		detail := ""
		if err != nil {
			detail = err.Error()
		} else {
			detail = strings.TrimSpace(string(res.Stderr))
		}
		err := fmt.Errorf("the mount at %s does not answer (%s); check the bucket, endpoint and credentials", mp, detail)
		if cerr := e.removeFailedMount(ctx, req); cerr != nil {
			err = errors.Join(err, cerr)
		} else {
			err = fmt.Errorf("%w: the mount was removed again", err)
		}
		return MountResult{MountPath: mp, Applied: applied}, mount.Redact(err, mount.Secrets(req.Mount))
	}
	return MountResult{MountPath: mp, Applied: applied}, nil
}

// UnmountMount unmounts req.Mount and removes the helper files ApplyMount
// generated for it. The mount point is unmounted first (fusermount3 -u,
// else umount, retried with backoff: see unmountBackoff); if it stays
// mounted (in use), nothing else is done and the error (a
// *MountLeftError) says what is left where, so the helper and its config
// survive for a retry. Then the pattern's unapply commands run, the
// mount's helpers are ended and waited for, and the generated files go. A
// workspace that is gone is not an error: nothing is mounted in it any
// more.
func (e *Engine) UnmountMount(ctx context.Context, req MountRequest) error {
	return e.unmountMount(ctx, req, true, false)
}

// removeFailedMount removes what a failed ApplyMount left (the caller
// holds the path's lock), also when ctx was cancelled: its error, a
// *MountLeftError when something stayed, says what is left.
func (e *Engine) removeFailedMount(ctx context.Context, req MountRequest) error {
	if err := e.unmountMount(context.WithoutCancel(ctx), req, false, true); err != nil {
		return fmt.Errorf("removing the failed mount failed: %w", err)
	}
	return nil
}

// lockMountPath serialises mount and unmount of one path of one
// workspace within this process, and returns the unlock function.
func (e *Engine) lockMountPath(workspaceID, mp string) func() {
	key := workspaceID + "\x00" + mp
	v, _ := e.mountLocks.LoadOrStore(key, &sync.Mutex{})
	mu := v.(*sync.Mutex) //nolint:forcetypeassert // the map holds only *sync.Mutex
	mu.Lock()
	return mu.Unlock
}

// sessionDirParents are the workspace-relative directories under which the
// Python SDK's patterns keep one directory per session id.
var sessionDirParents = []string{".sandbox-rclone-config", ".sandbox-mountpoint-env", ".sandbox-blobfuse-config",
	".sandbox-blobfuse-cache"}

// removeSessionDirs removes this mount's session directories (the session
// id is the mount's own, so nothing else lives there) without following
// symlinks, then each parent left empty.
func removeSessionDirs(ctx context.Context, b backend.Backend, sid string) error {
	if sid == "" {
		return nil
	}
	for _, parent := range sessionDirParents {
		if err := b.RemoveAll(ctx, parent+"/"+sid); err != nil {
			return err
		}
		if st, err := b.Stat(ctx, parent); err == nil && st.IsDir {
			_ = b.Remove(ctx, parent) // fails, harmlessly, while other mounts use it
		}
	}
	return nil
}

// MountState is what a workspace shows at a mount path.
type MountState struct {
	// Listed is true when /proc/mounts lists the path as a mount point.
	Listed bool
	// Healthy is true when the listed mount answers a stat (a FUSE mount
	// whose helper died answers "Transport endpoint is not connected").
	Healthy bool
}

// MountStatus reads /proc/mounts inside workspace id and, for a listed
// mount path, stats it once.
func (e *Engine) MountStatus(ctx context.Context, id, mountPath string) (MountState, error) {
	w, err := e.Open(ctx, id)
	if err != nil {
		return MountState{}, err
	}
	res, err := w.Backend.Exec(ctx, sandbox.ExecRequest{Argv: []string{"cat", "/proc/mounts"}, Timeout: MountCommandTimeout})
	if err != nil {
		return MountState{}, err
	}
	if !res.OK() {
		return MountState{}, fmt.Errorf("reading /proc/mounts in workspace %s failed: %s", id, bytes.TrimSpace(res.Stderr))
	}
	if !procMountsHas(res.Stdout, mountPath) {
		return MountState{}, nil
	}
	probe, err := w.Backend.Exec(ctx, sandbox.ExecRequest{Argv: []string{"ls", "-d", "--", mountPath}, Timeout: mountProbeTimeout})
	return MountState{Listed: true, Healthy: err == nil && probe.OK()}, nil
}

// mountProbeTimeout bounds the stat of a mount point on refresh: a hung
// helper counts as unhealthy.
const mountProbeTimeout = 20 * time.Second

// MountActive reports whether a healthy filesystem is mounted exactly at
// the absolute path mountPath inside workspace id.
func (e *Engine) MountActive(ctx context.Context, id, mountPath string) (bool, error) {
	st, err := e.MountStatus(ctx, id, mountPath)
	return st.Listed && st.Healthy, err
}

// procMountsHas reports whether /proc/mounts text lists target as a mount
// point. The kernel escapes space, tab, newline and backslash as \ooo.
func procMountsHas(text []byte, target string) bool {
	for _, line := range strings.Split(string(text), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && local.UnescapeMountField(f[1]) == target {
			return true
		}
	}
	return false
}

// mountSession is a workspace seen from a mount pattern (mount.Session).
type mountSession struct {
	e *Engine
	w *Workspace
}

func (s *mountSession) Root() string { return s.w.Root }

func (s *mountSession) Exec(ctx context.Context, argv []string) (mount.ExecResult, error) {
	res, err := s.w.Exec(ctx, sandbox.ExecRequest{Argv: argv, Timeout: MountCommandTimeout})
	if err != nil {
		return mount.ExecResult{}, err
	}
	return mount.ExecResult{ExitCode: res.ExitCode, Stdout: res.Stdout, Stderr: res.Stderr}, nil
}

func (s *mountSession) WriteFile(ctx context.Context, rel string, content []byte) error {
	_, err := s.w.Backend.WriteFile(ctx, rel, bytes.NewReader(content), 0o600, "")
	return err
}

// ReadFile reads a file the Python SDK reads from the sandbox (an rclone
// config_file_path) with `cat --`, as the Python SDK's Docker backend reads.
func (s *mountSession) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if !path.IsAbs(p) {
		p = path.Join(s.w.Root, p)
	}
	res, err := s.w.Backend.Exec(ctx, sandbox.ExecRequest{Argv: []string{"cat", "--", p}, Timeout: MountCommandTimeout})
	if err != nil {
		return nil, err
	}
	if !res.OK() {
		return nil, &sandbox.Error{Code: sandbox.CodeWorkspaceReadNotFound, Op: "read", Message: "file not found: " + p,
			Context: map[string]any{"path": p}}
	}
	return res.Stdout, nil
}
