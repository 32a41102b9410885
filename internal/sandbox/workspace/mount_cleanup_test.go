package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/fakes3"
)

// busyShims puts fusermount3 and umount wrappers first on PATH that answer
// "busy" (as a mount in use does) to the first <limit> non-lazy unmounts
// of a mount point, limit read from dir/<mount point with / as _>.limit
// (none: 0, "-1": always busy), and otherwise run the real tools. It
// returns the directory holding the limits and the counts of refused
// unmounts.
func busyShims(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, tool := range []string{"fusermount3", "umount"} {
		real, err := exec.LookPath(tool)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		lazy := "-uz"
		if tool == "umount" {
			lazy = "-l"
		}
		script := fmt.Sprintf(`#!/bin/sh
state=%q
lazy=
mp=
for a in "$@"; do
  case "$a" in %s) lazy=1 ;; -*) ;; *) mp=$a ;; esac
done
key=$(printf '%%s' "$mp" | tr / _)
if [ -z "$lazy" ] && [ -f "$state/$key.limit" ]; then
  limit=$(cat "$state/$key.limit")
  n=$(cat "$state/$key.count" 2>/dev/null || echo 0)
  if [ "$limit" = -1 ] || [ "$n" -lt "$limit" ]; then
    echo $((n+1)) > "$state/$key.count"
    echo "%s: $mp: Device or resource busy" >&2
    exit 1
  fi
fi
exec %q "$@"
`, dir, lazy, tool, real)
		if err := os.WriteFile(filepath.Join(dir, tool), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

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
	state := busyShims(t)
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
		key := strings.ReplaceAll(filepath.Join(w.Root, rel), "/", "_")
		limit := "2" // fusermount3 -u and umount of one attempt
		if i%10 == 0 {
			limit = "-1"
		}
		if err := os.WriteFile(filepath.Join(state, key+".limit"), []byte(limit), 0o600); err != nil {
			t.Fatal(err)
		}
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
		if b, err := os.ReadFile(filepath.Join(state, key+".count")); err == nil && len(b) > 0 {
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
