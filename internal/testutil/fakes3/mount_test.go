package fakes3_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/fakes3"
)

// The host recipe the mount resources rely on: `rclone mount --read-only
// --daemon` of the fake bucket lists and reads the files, refuses writes
// without sending any, and `fusermount3 -u` unmounts it and ends the
// daemon.
func TestRcloneMount_readOnlyDaemonOnHost(t *testing.T) {
	rclone := fakes3.LookRclone(t)
	fakes3.RequireFUSE(t)
	s := fakes3.Start(t, "bucket", files)
	conf := s.WriteRcloneConfig(t, "r")
	logFile := filepath.Join(t.TempDir(), "rclone.log")
	dir := t.TempDir()
	fakes3.CleanupMount(t, dir)

	// --daemon-wait bounds how long a failed mount keeps the parent waiting
	// (1m by default); the daemon's errors only reach --log-file. With
	// --log-file the daemon keeps a copy of the stderr it inherited, so
	// the output goes to a file: a pipe would only reach end of file at
	// the unmount.
	out, err := os.Create(filepath.Join(t.TempDir(), "rclone.out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command(rclone, "mount", "r:bucket", dir, "--read-only", "--config", conf,
		"--daemon", "--daemon-wait", "30s", "--log-file", logFile)
	cmd.Env = fakes3.RcloneEnv()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Run(); err != nil {
		output, _ := os.ReadFile(out.Name())
		log, _ := os.ReadFile(logFile)
		t.Fatalf("rclone mount --daemon: %v\n%s\nlog:\n%s", err, output, log)
	}
	if ok, fstype, err := fakes3.Mounted(dir); err != nil || !ok || fstype != "fuse.rclone" {
		t.Fatalf("after rclone mount --daemon: mounted %v, type %q, err %v", ok, fstype, err)
	}

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := fmtList(names); got != "dir hello.txt" {
		t.Fatalf("mount lists %q", got)
	}
	for key, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, key))
		if err != nil || string(got) != want {
			t.Fatalf("read %s: %v %q, want %q", key, err, got, want)
		}
	}

	writes := map[string]func() error{
		"create": func() error { return os.WriteFile(filepath.Join(dir, "new.txt"), []byte("x"), 0o644) },
		"append": func() error {
			f, err := os.OpenFile(filepath.Join(dir, "hello.txt"), os.O_WRONLY|os.O_APPEND, 0)
			if err == nil {
				f.Close()
			}
			return err
		},
		"remove": func() error { return os.Remove(filepath.Join(dir, "hello.txt")) },
		"mkdir":  func() error { return os.Mkdir(filepath.Join(dir, "d"), 0o755) },
	}
	for name, write := range writes {
		if err := write(); !errors.Is(err, syscall.EROFS) {
			t.Errorf("%s on the read-only mount: %v, want EROFS", name, err)
		}
	}
	if n := s.Writes(); n != 0 {
		t.Errorf("the read-only mount sent %d write requests", n)
	}

	pids := fakes3.RclonePIDs(dir)
	if len(pids) != 1 {
		t.Errorf("rclone daemons serving the mount: %v, want one", pids)
	}
	if out, err := exec.Command("fusermount3", "-u", dir).CombinedOutput(); err != nil {
		t.Fatalf("fusermount3 -u: %v: %s", err, out)
	}
	if ok, _, _ := fakes3.Mounted(dir); ok {
		t.Fatal("still mounted after fusermount3 -u")
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(fakes3.RclonePIDs(dir)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the rclone daemon (pids %v) did not exit after the unmount", fakes3.RclonePIDs(dir))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func fmtList(names []string) string {
	sort.Strings(names)
	return strings.Join(names, " ")
}
