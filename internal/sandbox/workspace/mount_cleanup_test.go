package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/fakes3"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/need"
)

// cpuLoad runs n busy processes until the test ends.
func cpuLoad(t *testing.T, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		cmd := exec.Command("yes")
		if err := cmd.Start(); err != nil { // output to /dev/null
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	}
}

// leftovers lists what of a mount survives under root: rclone processes
// naming a path under root (its config or mount point; zombies excluded),
// mount points under root, and files under root's rclone config
// directory.
func leftovers(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		raw, err := os.ReadFile(p + "/cmdline")
		if err != nil || len(raw) == 0 {
			continue
		}
		argv := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
		if filepath.Base(argv[0]) != "rclone" || !strings.Contains(strings.Join(argv, " "), root+"/") {
			continue
		}
		if st, err := os.ReadFile(p + "/stat"); err == nil {
			if i := strings.LastIndexByte(string(st), ')'); i >= 0 && i+2 < len(st) && st[i+2] == 'Z' {
				continue
			}
		}
		out = append(out, "process "+filepath.Base(p)+": "+strings.Join(argv, " "))
	}
	info, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(info), "\n") {
		if f := strings.Fields(line); len(f) >= 5 && strings.HasPrefix(unescapeField(f[4]), root+"/") {
			out = append(out, "mount "+f[4])
		}
	}
	_ = filepath.Walk(filepath.Join(root, ".sandbox-rclone-config"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			out = append(out, "key file "+p)
		}
		return nil
	})
	return out
}

func unescapeField(s string) string {
	return strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`).Replace(s)
}

// A mount that comes up but does not answer (wrong keys) fails its
// create, 20 times in a row under CPU load, and its clean-up meets an
// unmount that fails: once (busy for a moment) in most repetitions,
// always in every tenth. Afterwards no rclone process, no mount and no
// key file of the workspace may be left, and each error says the mount
// was removed.
func TestApplyMountFailureLeavesNothing(t *testing.T) {
	fakes3.LookRclone(t)
	fakes3.RequireFUSE(t)
	srv := fakes3.Start(t, "bucket", map[string]string{"a.txt": "a"})
	eng, _ := newEngine(t)
	ctx := context.Background()
	w, err := eng.CreateLocal(ctx, LocalSpec{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fakes3.UnmountAllUnder(t, w.Root) })
	busy := fakes3.BusyUnmounts(t)
	raw, err := json.Marshal(map[string]any{"type": "s3_mount", "bucket": "bucket", "endpoint_url": srv.Endpoint,
		"s3_provider": "Other", "access_key_id": "AKIDWRONGWRONGWRONG", "secret_access_key": "wrong-secret-value-0123",
		"mount_strategy": map[string]any{"type": "in_container", "pattern": map[string]any{"type": "rclone"}}})
	if err != nil {
		t.Fatal(err)
	}
	cpuLoad(t, 3)
	refused := 0
	for i := 0; i < 20; i++ {
		m, err := mount.DecodeJSON(raw)
		if err != nil {
			t.Fatal(err)
		}
		rel := fmt.Sprintf("m%02d", i)
		mp := filepath.Join(w.Root, rel)
		limit := 2 // fusermount3 -u and umount of one attempt
		if i%10 == 0 {
			limit = -1
		}
		busy.Set(t, mp, limit)
		start := time.Now()
		_, err = eng.ApplyMount(ctx, MountRequest{WorkspaceID: w.ID, Path: rel, Mount: m,
			SessionID: fmt.Sprintf("%032x", i+1)})
		if err == nil {
			t.Fatalf("repetition %d: mounting with wrong keys succeeded", i)
		}
		if !strings.Contains(err.Error(), "the mount was removed again") {
			t.Errorf("repetition %d (%s): %v", i, time.Since(start).Round(time.Millisecond), err)
		}
		t.Logf("repetition %d: %s", i, time.Since(start).Round(time.Millisecond))
		if busy.Refused(mp) > 0 {
			refused++
		}
	}
	// The failure is the one meant: the mount came up and its unmount was
	// refused, in most repetitions at least.
	if refused < 15 {
		t.Errorf("only %d of 20 repetitions mounted and met a refused unmount: the test proves too little", refused)
	}
	if left := leftovers(t, w.Root); len(left) > 0 {
		t.Errorf("left after 20 failed mounts:\n%s", strings.Join(left, "\n"))
	}
}

// An rclone whose daemon starts but never becomes ready (the mount
// command fails while the daemon, in its own process group with a child,
// lives on): the failed create ends the daemon and its child, waits for
// them, and removes the key file.
func TestApplyMountDaemonNeverReady(t *testing.T) {
	// The mount's first step probes for rclone through a login shell
	// (sh -lc, as the Python SDK does), whose PATH comes from /etc/profile and
	// not from this test: only the later steps reach the shim below, so the
	// probe needs an installed rclone (make test-deps installs it).
	if err := exec.Command("sh", "-lc", "command -v rclone").Run(); err != nil {
		need.Unavailable(t, "the rclone daemon clean-up test", "rclone is not installed where a login shell finds it: "+err.Error())
	}
	eng, _ := newEngine(t)
	ctx := context.Background()
	w, err := eng.CreateLocal(ctx, LocalSpec{})
	if err != nil {
		t.Fatal(err)
	}
	shims := t.TempDir()
	daemonDir := filepath.Join(shims, "daemon")
	if err := os.Mkdir(daemonDir, 0o755); err != nil {
		t.Fatal(err)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	// The daemon is a shell named rclone whose arguments carry rclone's
	// (with --config); it starts a child and records its pid.
	if err := os.Symlink(sh, filepath.Join(daemonDir, "rclone")); err != nil {
		t.Fatal(err)
	}
	childPID := filepath.Join(shims, "child.pid")
	shim := fmt.Sprintf(`#!/bin/sh
if [ "$1" = mount ]; then
  setsid %q -c 'sleep 300 & echo $! > "$0.tmp"; mv "$0.tmp" "$0"; wait' %q "$@" </dev/null >/dev/null 2>&1 &
  # The mount command gives up only once its daemon has a child (however
  # slowly the machine starts it), so that the clean-up has both to end.
  while [ ! -s %q ]; do sleep 0.01; done
  echo "daemon timed out" >&2
  exit 1
fi
exit 0
`, filepath.Join(daemonDir, "rclone"), childPID, childPID)
	if err := os.WriteFile(filepath.Join(shims, "rclone"), []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", shims+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Cleanup(func() { killNaming(shims) }) // what survives a failure
	m, err := mount.DecodeJSON([]byte(`{"type": "s3_mount", "bucket": "b", "endpoint_url": "http://127.0.0.1:9",
		"s3_provider": "Other", "access_key_id": "AKIDNEVERREADY", "secret_access_key": "never-ready-secret",
		"mount_strategy": {"type": "in_container", "pattern": {"type": "rclone"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = eng.ApplyMount(ctx, MountRequest{WorkspaceID: w.ID, Path: "m", Mount: m, SessionID: strings.Repeat("ab", 16)})
	if err == nil {
		t.Fatal("a mount whose daemon never became ready succeeded")
	}
	if strings.Contains(err.Error(), "removing the failed mount failed") {
		t.Errorf("the clean-up failed: %v", err)
	}
	raw, err := os.ReadFile(childPID)
	if err != nil {
		t.Fatalf("the daemon never started its child: %v", err)
	}
	if st, err := os.ReadFile("/proc/" + strings.TrimSpace(string(raw)) + "/stat"); err == nil {
		if i := strings.LastIndexByte(string(st), ')'); i >= 0 && i+2 < len(st) && st[i+2] != 'Z' {
			t.Errorf("the daemon's child %s (its process group) survived", strings.TrimSpace(string(raw)))
		}
	}
	if left := leftovers(t, w.Root); len(left) > 0 {
		t.Errorf("left after the failed mount:\n%s", strings.Join(left, "\n"))
	}
}

// killNaming kills the processes whose command line contains s, with
// their process groups.
func killNaming(s string) {
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		raw, err := os.ReadFile(p + "/cmdline")
		if err != nil || !strings.Contains(string(raw), s) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(p)); err == nil && pid != os.Getpid() {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
