package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

// Removing a mount is reported truthfully: an unmount that fails is
// retried, and what is left after the last attempt (the mount, its helper
// processes, its config file with the credentials) is an error naming it.
//
// Policy:
//   - the unmount (fusermount3 -u, else umount) is tried up to
//     len(unmountBackoff)+1 times, waiting 0.2 s, 0.4 s, 0.8 s, 1.6 s and
//     3.2 s between attempts (about 6 s in all): a FUSE mount is busy for a
//     moment while its helper is still answering a lookup or a process
//     still leaves it;
//   - removing a mount whose create failed (nobody was ever given it) ends
//     with a lazy unmount (fusermount3 -uz, else umount -l) when it is still
//     busy, then its helpers are ended;
//   - destroying a mount never unmounts lazily: a lazy unmount would hide a
//     mount that a process still uses, while the helper and its credentials
//     live on with no mount point to find them by. The mount, its helper
//     and its config stay, and the error says where they are;
//   - the helpers of a mount (the processes whose arguments name one of its
//     generated files: rclone's --config) are ended with SIGTERM to their
//     process group, SIGKILL after 5 s, and waited for;
//   - the generated files (the key file) are removed whenever the mount is
//     gone, also when ending a helper failed.

// unmountBackoff are the waits between unmount attempts.
var unmountBackoff = []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond,
	1600 * time.Millisecond, 3200 * time.Millisecond}

// MountLeftError is returned when removing a mount left something behind.
// Nothing in it is secret: paths and process ids only.
type MountLeftError struct {
	// MountPath is the mount's absolute path in the workspace.
	MountPath string
	// Mounted is true when MountPath is still a mount point.
	Mounted bool
	// Attempts is how many unmounts were tried, Detail the last one's
	// error output.
	Attempts int
	Detail   string
	// Helpers are the process ids of the mount's helpers still running.
	Helpers []string
	// Files are the mount's generated files (its config, holding the
	// credentials) still in the workspace.
	Files []string
}

func (e *MountLeftError) Error() string {
	var b strings.Builder
	if e.Mounted {
		fmt.Fprintf(&b, "%s is still mounted after %d unmount attempts", e.MountPath, e.Attempts)
		if e.Detail != "" {
			fmt.Fprintf(&b, " (%s)", e.Detail)
		}
	} else {
		fmt.Fprintf(&b, "the mount at %s is gone but not all of what served it", e.MountPath)
	}
	if len(e.Helpers) > 0 {
		fmt.Fprintf(&b, "; its helper process(es) %s still run", strings.Join(e.Helpers, ", "))
	}
	if len(e.Files) > 0 {
		fmt.Fprintf(&b, "; its config holding the credentials is still at %s", strings.Join(e.Files, ", "))
	}
	b.WriteString(": stop what uses the mount (a shell or process with its working directory or open files inside), " +
		"then destroy again")
	if e.Mounted {
		fmt.Fprintf(&b, "; by hand: fusermount3 -u %s", e.MountPath)
	}
	if len(e.Helpers) > 0 {
		fmt.Fprintf(&b, "; kill %s", strings.Join(e.Helpers, " "))
	}
	if len(e.Files) > 0 {
		fmt.Fprintf(&b, "; rm %s", strings.Join(e.Files, " "))
	}
	return b.String()
}

// unmountRetrying unmounts the listed mount point mp, retrying with
// unmountBackoff, and returns whether it is still listed, the number of
// attempts and the last attempt's error output.
func (e *Engine) unmountRetrying(ctx context.Context, w *Workspace, mp string) (listed bool, attempts int, detail string, err error) {
	for {
		attempts++
		res, err := w.Backend.Exec(ctx, sandbox.ExecRequest{Argv: []string{"sh", "-c",
			`fusermount3 -u "$1" 2>&1 || umount "$1" 2>&1`, "sh", mp}, Timeout: MountCommandTimeout})
		if err != nil {
			return true, attempts, detail, err
		}
		detail = strings.TrimSpace(string(res.Stdout) + string(res.Stderr))
		st, err := e.MountStatus(ctx, w.ID, mp)
		if err != nil || !st.Listed {
			return st.Listed, attempts, detail, err
		}
		if attempts > len(unmountBackoff) {
			return true, attempts, detail, nil
		}
		select {
		case <-ctx.Done():
			return true, attempts, detail, ctx.Err()
		case <-time.After(unmountBackoff[attempts-1]):
		}
	}
}

// lazyUnmount detaches mp even while it is busy.
func (e *Engine) lazyUnmount(ctx context.Context, w *Workspace, mp string) (bool, error) {
	_, err := w.Backend.Exec(ctx, sandbox.ExecRequest{Argv: []string{"sh", "-c",
		`fusermount3 -uz "$1" 2>/dev/null || umount -l "$1"`, "sh", mp}, Timeout: MountCommandTimeout})
	if err != nil {
		return true, err
	}
	st, err := e.MountStatus(ctx, w.ID, mp)
	return st.Listed, err
}

// helperScript lists (no arguments after the paths) or ends the mount
// helpers (rclone, mount-s3, blobfuse2) whose arguments name one of the
// paths given, exactly or as the value of an --option=path: $1 is "list"
// or "kill". Ending them sends SIGTERM to each one's process group and to
// itself, waits up to 5 s, then SIGKILL and waits up to 2 s more; it prints
// the pids left and exits 1 if any. Zombies count as gone.
const helperScript = `mode=$1; shift
nl='
'
list() {
  for d in /proc/[0-9]*; do
    comm=
    read -r comm < "$d/comm" 2>/dev/null
    case "$comm" in rclone|mount-s3|blobfuse2) ;; *) continue ;; esac
    c=$(tr '\000' '\n' < "$d/cmdline" 2>/dev/null) || continue
    case "$c" in
      rclone"$nl"*|*/rclone"$nl"*|mount-s3"$nl"*|*/mount-s3"$nl"*|blobfuse2"$nl"*|*/blobfuse2"$nl"*) ;;
      *) continue ;;
    esac
    hit=
    for p in "$@"; do
      case "$nl$c$nl" in *"$nl$p$nl"*|*"=$p$nl"*) hit=1 ;; esac
    done
    [ -n "$hit" ] || continue
    s=$(cat "$d/stat" 2>/dev/null) || continue
    case "${s##*) }" in Z*) continue ;; esac
    echo "${d#/proc/}"
  done
}
pids=$(list "$@")
if [ "$mode" = list ] || [ -z "$pids" ]; then echo $pids; exit 0; fi
for sig in TERM KILL; do
  for p in $pids; do kill -$sig -$p 2>/dev/null; kill -$sig $p 2>/dev/null; done
  i=0
  while [ $i -lt 50 ]; do
    pids=$(list "$@")
    [ -z "$pids" ] && exit 0
    sleep 0.1
    i=$((i+1))
    [ $sig = KILL ] && [ $i -ge 20 ] && break
  done
done
echo $pids
exit 1
`

// helpers lists ("list") or ends ("kill") the helper processes of a mount
// whose generated files are paths, and returns the pids left running.
func helpers(ctx context.Context, w *Workspace, mode string, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	argv := append([]string{"sh", "-c", helperScript, "sh", mode}, paths...)
	res, err := w.Backend.Exec(ctx, sandbox.ExecRequest{Argv: argv, Timeout: MountCommandTimeout})
	if err != nil {
		return nil, err
	}
	left := strings.Fields(string(res.Stdout))
	if mode == "kill" && !res.OK() && len(left) == 0 {
		return nil, fmt.Errorf("ending the mount's helpers failed: %s", bytes.TrimSpace(res.Stderr))
	}
	return left, nil
}

// unmountMount is UnmountMount; lock is false when the caller already holds
// the path's lock, and failedCreate is true for the clean-up of a failed
// ApplyMount (which may unmount lazily, see the policy above).
func (e *Engine) unmountMount(ctx context.Context, req MountRequest, lock, failedCreate bool) error {
	w, err := e.Open(ctx, req.WorkspaceID)
	if errors.Is(err, ErrWorkspaceGone) {
		return nil
	}
	if err != nil {
		return err
	}
	mp, err := ResolveMountPath(w.Root, req.Path, req.Mount)
	if err != nil {
		return err
	}
	if lock {
		unlock := e.lockMountPath(req.WorkspaceID, mp)
		defer unlock()
	}
	generated, err := mount.GeneratedPaths(req.Mount, w.Root, mp, req.SessionID)
	if err != nil {
		return mount.Redact(err, mount.Secrets(req.Mount))
	}
	left := &MountLeftError{MountPath: mp}
	// Two passes: a helper that mounts after the first look (it was slow
	// to become ready) is ended in the first pass and its mount, dead by
	// then, is removed in the second.
	for pass := 0; pass < 2; pass++ {
		st, err := e.MountStatus(ctx, req.WorkspaceID, mp)
		if err != nil {
			return err
		}
		if st.Listed {
			listed, n, detail, err := e.unmountRetrying(ctx, w, mp)
			left.Attempts += n
			left.Detail = detail
			if err != nil {
				return err
			}
			if listed && failedCreate {
				if listed, err = e.lazyUnmount(ctx, w, mp); err != nil {
					return err
				}
			}
			if listed {
				left.Mounted = true
				left.Helpers, _ = helpers(ctx, w, "list", generated)
				left.Files = existing(ctx, w, generated)
				return left
			}
		}
		if pass == 1 {
			break
		}
		// The pattern's own unapply (it stops helpers by remote name and
		// removes the generated files), then every helper naming one of
		// the generated files is ended and waited for.
		uerr := mount.Unapply(ctx, &mountSession{e: e, w: w}, req.Mount, mp, req.SessionID)
		helpersLeft, herr := helpers(ctx, w, "kill", generated)
		derr := removeSessionDirs(ctx, w.Backend, mount.SessionHex(req.SessionID))
		if uerr != nil || herr != nil || derr != nil || len(helpersLeft) > 0 {
			left.Helpers = helpersLeft
			left.Files = existing(ctx, w, generated)
			var errs []error
			if len(helpersLeft) > 0 || len(left.Files) > 0 {
				errs = append(errs, left)
			}
			errs = append(errs, uerr, herr, derr)
			return mount.Redact(errors.Join(errs...), mount.Secrets(req.Mount))
		}
	}
	if files := existing(ctx, w, generated); len(files) > 0 {
		left.Files = files
		return left
	}
	return nil
}

// existing returns those of the absolute paths that exist in the workspace.
func existing(ctx context.Context, w *Workspace, paths []string) []string {
	var out []string
	root := strings.TrimSuffix(w.Root, "/") + "/"
	for _, p := range paths {
		rel, ok := strings.CutPrefix(p, root)
		if !ok {
			continue // GeneratedPaths lists only paths under the root
		}
		if _, err := w.Backend.Stat(ctx, rel); err == nil {
			out = append(out, p)
		}
	}
	return out
}
