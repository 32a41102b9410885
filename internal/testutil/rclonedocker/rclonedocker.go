// Package rclonedocker is test support for the docker_volume mount
// strategy: it runs `rclone serve docker`, rclone's implementation of the
// Docker volume plugin protocol, on this machine for one test. Only tests
// import it.
//
// The plugin must run where the daemon runs: it serves a unix socket in
// /run/docker/plugins (root only) and its FUSE mounts are bind-mounted into
// containers from this machine's mount namespace. Without a local daemon,
// root, rclone, fusermount3 or /dev/fuse the test fails under CI=true and
// skips elsewhere.
package rclonedocker

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/fakes3"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/volplugin"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/need"
)

// PluginDir is where the Docker daemon finds volume plugins' sockets: a
// socket <name>.sock there is the volume driver <name>.
const PluginDir = "/run/docker/plugins"

// Plugin is a running `rclone serve docker`.
type Plugin struct {
	// Driver is the volume driver name to create volumes with
	// (`docker volume create -d <Driver>`): "rclone", the name the mount
	// resources' support matrix knows, served by one test at a time.
	Driver string
	// Socket is the plugin's unix socket, PluginDir/<Driver>.sock.
	Socket string
	// BaseDir holds the plugin's FUSE mounts, one directory per volume.
	BaseDir string
	// LogFile is rclone's output (-v).
	LogFile string
}

// StartRcloneVolumePlugin starts `rclone serve docker` for the test and
// waits until its socket answers. Volumes take the options of
// fakes3.Server.VolumeOptions. The plugin passes --allow-other so that a
// container user other than root can read the mounts.
//
// At cleanup, in this order: containers still using one of the volumes the
// plugin made are removed, then those volumes (the daemon can no longer
// remove a volume once its plugin is gone), then rclone is stopped
// (SIGTERM: it unmounts its volumes and removes its socket; SIGKILL after
// 10 s), and finally any mount left under BaseDir is unmounted and the
// socket removed. On failure the plugin's log is logged.
func StartRcloneVolumePlugin(t testing.TB) *Plugin {
	t.Helper()
	// One driver name for every test: the daemon keeps each legacy plugin
	// it has talked to, and every later lookup of a missing volume waits
	// on each one whose socket is gone, so unique names would slow every
	// volume test after them. The lock serialises the tests that serve it.
	volplugin.Lock(t, "rclone")
	return StartRcloneVolumePluginAs(t, "rclone")
}

// StartRcloneVolumePluginAs is StartRcloneVolumePlugin serving the volume
// driver name driver (e.g. "rclone", the name `rclone serve docker` takes
// by default), for a test of a configuration that names no driver. Tests
// that share a name must not run at the same time: the test fails when
// another plugin already answers on that name's socket.
func StartRcloneVolumePluginAs(t testing.TB, driver string) *Plugin {
	t.Helper()
	dockertest.Require(t)
	rclone := fakes3.LookRclone(t)
	fakes3.RequireFUSE(t)
	if h := os.Getenv("DOCKER_HOST"); h != "" && !strings.HasPrefix(h, "unix://") {
		unavailable(t, fmt.Sprintf("DOCKER_HOST=%s: a volume plugin must run on the daemon's machine", h))
	}
	if os.Geteuid() != 0 {
		unavailable(t, "serving a volume plugin in "+PluginDir+" needs root")
	}
	if err := os.MkdirAll(PluginDir, 0o700); err != nil {
		unavailable(t, err.Error())
	}

	dir := t.TempDir()
	p := &Plugin{
		Driver:  driver,
		Socket:  filepath.Join(PluginDir, driver+".sock"),
		BaseDir: filepath.Join(dir, "volumes"),
		LogFile: filepath.Join(dir, "rclone.log"),
	}
	if c, err := net.DialTimeout("unix", p.Socket, time.Second); err == nil {
		c.Close()
		t.Fatalf("another volume plugin already serves %s", p.Socket)
	}
	// A socket nothing answers on was left by a plugin that was killed.
	_ = os.Remove(p.Socket)
	// The configuration is empty: volumes carry their remote's options.
	config := filepath.Join(dir, "rclone.conf")
	for _, d := range []string{p.BaseDir, filepath.Join(dir, "cache")} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(config, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	log, err := os.Create(p.LogFile)
	if err != nil {
		t.Fatal(err)
	}
	// The cache directory also holds the plugin's state file
	// (docker-plugin.state): one per plugin, never the user's.
	cmd := exec.Command(rclone, "serve", "docker",
		"--socket-addr", p.Socket, "--base-dir", p.BaseDir,
		"--config", config, "--cache-dir", filepath.Join(dir, "cache"),
		"--allow-other", "--no-spec", "-v")
	cmd.Env = fakes3.RcloneEnv()
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		t.Fatalf("rclone serve docker: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); log.Close() }()
	t.Cleanup(func() { p.stop(t, cmd, exited) })

	deadline := time.Now().Add(15 * time.Second)
	for {
		if c, err := net.DialTimeout("unix", p.Socket, time.Second); err == nil {
			c.Close()
			return p
		}
		select {
		case err := <-exited:
			exited <- err // for stop
			t.Fatalf("rclone serve docker exited before serving %s: %v\n%s", p.Socket, err, p.log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("rclone serve docker did not serve %s within 15 s\n%s", p.Socket, p.log())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (p *Plugin) stop(t testing.TB, cmd *exec.Cmd, exited chan error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if cli := dockertest.Client(); cli != nil {
		p.removeVolumes(ctx, t, cli)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	var exit error
	select {
	case exit = <-exited:
	case <-time.After(10 * time.Second):
		t.Logf("rclone serve docker ignored SIGTERM for 10 s; killing it")
		_ = cmd.Process.Kill()
		exit = <-exited
	}
	p.unmountLeftovers(t)
	if err := os.Remove(p.Socket); err != nil && !os.IsNotExist(err) {
		t.Errorf("removing the plugin socket: %v", err)
	}
	if t.Failed() {
		t.Logf("rclone serve docker (exit: %v) log:\n%s", exit, p.log())
	}
}

// removeVolumes removes the volumes this plugin made (its driver name, a
// mount point under its BaseDir: never another plugin's of the same name),
// and first the containers (running or not) that still use them.
func (p *Plugin) removeVolumes(ctx context.Context, t testing.TB, cli *client.Client) {
	vols, err := cli.VolumeList(ctx, client.VolumeListOptions{Filters: make(client.Filters).Add("driver", p.Driver)})
	if err != nil {
		t.Errorf("listing the plugin's volumes: %v", err)
		return
	}
	for _, v := range vols.Items {
		if !strings.HasPrefix(v.Mountpoint, p.BaseDir+string(filepath.Separator)) {
			continue
		}
		users, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("volume", v.Name)})
		if err != nil {
			t.Errorf("listing the containers using volume %s: %v", v.Name, err)
		}
		for _, c := range users.Items {
			if _, err := cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true}); err != nil {
				t.Errorf("removing container %s, which uses volume %s: %v", c.ID, v.Name, err)
			}
		}
		if _, err := cli.VolumeRemove(ctx, v.Name, client.VolumeRemoveOptions{Force: true}); err != nil {
			t.Errorf("removing volume %s: %v", v.Name, err)
		}
	}
}

// unmountLeftovers unmounts whatever is still mounted under BaseDir (a
// plugin killed before it could unmount), lazily when busy.
func (p *Plugin) unmountLeftovers(t testing.TB) {
	entries, _ := os.ReadDir(p.BaseDir)
	for _, e := range entries {
		dir := filepath.Join(p.BaseDir, e.Name())
		if ok, _, _ := fakes3.Mounted(dir); !ok {
			continue
		}
		if out, err := exec.Command("fusermount3", "-uz", dir).CombinedOutput(); err != nil {
			t.Errorf("fusermount3 -uz %s: %v: %s", dir, err, out)
		}
	}
}

func (p *Plugin) log() string {
	b, err := os.ReadFile(p.LogFile)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

func unavailable(t testing.TB, why string) {
	t.Helper()
	need.Unavailable(t, "Docker volume plugin tests", why)
}
