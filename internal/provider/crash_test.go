package provider

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
)

const crashConfig = `
terraform {
  required_providers {
    sandbox = { source = "agentsandbox/sandbox" }
  }
}

provider "sandbox" {
  local_base_dir = %q
}

resource "sandbox_workspace" "ws" {
  %s
}

output "container" {
  value = sandbox_workspace.ws.container_id
}

resource "sandbox_file" "big" {
  workspace_id = sandbox_workspace.ws.id
  path         = "data/big.bin"
  source       = "big.bin"
}
`

// killMoment is when a write is killed: once its temporary file holds at
// least min bytes.
type killMoment struct {
	name string
	min  int64
}

// crashTarget is a workspace kind for testKilledWrite: its block, where
// its root is seen from the host once created, and which processes to kill
// (the provider, which terraform started as pid, and any process of the
// workspace that writes for it). The victims are found once the write has
// begun, so that the kill itself is one system call per process.
type crashTarget struct {
	size    int64 // of the file written
	block   string
	root    func(c *cliRun) string
	victims func(pid int) []int
}

// TestAccFile_killedWriteLeavesNoTemporary kills the provider (kill -9)
// while it writes a 1 GiB sandbox_file, at three moments: as the write
// starts, half-way, and once all bytes are written (while the file is
// synced and renamed). Each kill leaves the temporary file behind; the next
// apply succeeds and removes it, the plan after it is clean, the workspace
// holds no temporary file, and look-alike files of other names stay.
func TestAccFile_killedWriteLeavesNoTemporary(t *testing.T) {
	testKilledWrite(t, crashTarget{
		size:  1 << 30,
		block: "local {}",
		root: func(c *cliRun) string {
			return (&testEnv{t: c.t, base: filepath.Join(c.dir, "base")}).wsRoot()
		},
		victims: func(pid int) []int { return children(pid, "terraform-provi", "") },
	})
}

// TestAccDockerFile_killedWriteLeavesNoTemporary is the same in a container,
// where the file helper writes: it is killed with the provider.
func TestAccDockerFile_killedWriteLeavesNoTemporary(t *testing.T) {
	dockertest.Require(t)
	var initPid int
	testKilledWrite(t, crashTarget{
		size:  256 << 20, // streamed into the container: the same moments, a quarter of the time
		block: fmt.Sprintf("docker {\n    image       = %q\n    pull_policy = \"never\"\n  }", dockertest.Image),
		root: func(c *cliRun) string {
			id := strings.TrimSpace(c.run("output.log", "output", "-raw", "container"))
			info, err := dockertest.Client().ContainerInspect(context.Background(), id, client.ContainerInspectOptions{})
			must(c.t, err)
			initPid = info.Container.State.Pid
			return fmt.Sprintf("/proc/%d/root/workspace", initPid) // the container's root, seen from the host
		},
		victims: func(pid int) []int {
			cgroup, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", initPid))
			if err != nil {
				return nil
			}
			// The helper first: once the provider is gone, a live helper
			// would see its input end and clean up after itself.
			return append(children(0, "sandbox-fs-help", string(cgroup)), children(pid, "terraform-provi", "")...)
		},
	})
}

func testKilledWrite(t *testing.T, target crashTarget) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	size := target.size
	dir := t.TempDir()
	// A sparse source: reading it costs nothing, writing the copy costs the disk.
	src, err := os.Create(filepath.Join(dir, "big.bin"))
	must(t, err)
	must(t, src.Truncate(size))
	must(t, src.Close())
	must(t, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(fmt.Sprintf(crashConfig, filepath.Join(dir, "base"), target.block)), 0o644))
	cli := newCLIRun(t, dir)
	cli.env = append(cli.env, "TF_LOG=error")
	t.Cleanup(func() {
		cli.mustSucceed = false
		cli.run("destroy.log", "destroy", "-auto-approve", "-input=false")
	})
	cli.run("workspace.log", "apply", "-auto-approve", "-input=false", "-target=sandbox_workspace.ws")
	root := target.root(cli)
	data := filepath.Join(root, "data")
	must(t, os.MkdirAll(data, 0o755))
	foreign := []string{".big.bin.sandbox-tmp-000000000000", "big.bin.bak", ".other.bin" + ".sandbox-tmp-abcdefabcdef"}
	for _, name := range foreign {
		must(t, os.WriteFile(filepath.Join(data, name), []byte("not the provider's"), 0o644))
	}
	for _, m := range []killMoment{{"as the write starts", 1}, {"half-way", size / 2}, {"all bytes written, before the rename", size}} {
		var left string
		for try := 0; left == "" && try < 5; try++ {
			// The file must be written again by the apply (a missed
			// moment lets it finish).
			if err := os.Remove(filepath.Join(data, "big.bin")); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			left = cli.killWhen(data, m.min, target.victims)
		}
		if left == "" {
			t.Fatalf("%s: the write was never caught with its temporary file in place", m.name)
		}
		t.Logf("%s: killed with %s left behind", m.name, left)
		cli.run("recover.log", "apply", "-auto-approve", "-input=false")
		cli.run("plan.log", "plan", "-detailed-exitcode", "-input=false") // exit 2 (changes) fails the test
		var temps []string
		must(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && strings.Contains(d.Name(), ".sandbox-tmp-") {
				temps = append(temps, d.Name())
			}
			return err
		}))
		if strings.Join(temps, ",") != foreign[0]+","+foreign[2] {
			t.Fatalf("%s: after the next apply the workspace holds %v; only the foreign look-alikes %s and %s may stay",
				m.name, temps, foreign[0], foreign[2])
		}
		fi, err := os.Stat(filepath.Join(data, "big.bin"))
		if err != nil || fi.Size() != size {
			t.Fatalf("%s: big.bin after the next apply: %v, %v", m.name, fi, err)
		}
	}
	for _, name := range foreign {
		if b, err := os.ReadFile(filepath.Join(data, name)); err != nil || string(b) != "not the provider's" {
			t.Fatalf("foreign file %s: %q, %v", name, b, err)
		}
	}
}

// killWhen runs `apply` and, as soon as a temporary file in dir holds at
// least min bytes, kills -9 the processes victims names (asked once the
// temporary file appears). It returns the name of the temporary file left
// after the kill, or "" when none was (the write finished first).
func (c *cliRun) killWhen(dir string, min int64, victims func(pid int) []int) string {
	c.t.Helper()
	cmd := exec.Command(c.bin, "apply", "-auto-approve", "-input=false")
	cmd.Dir = c.dir
	cmd.Env = append(append([]string{}, c.env...), "TF_LOG_PATH="+filepath.Join(c.dir, "killed.log"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	must(c.t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.After(3 * time.Minute)
	var pids []int
	for {
		select {
		case err := <-done:
			c.t.Logf("apply ended before the moment came (%v):\n%s", err, out.String())
			return ""
		case <-deadline:
			_ = cmd.Process.Kill()
			c.t.Fatalf("no temporary file of %d bytes appeared in %s:\n%s", min, dir, out.String())
		default:
		}
		if pids == nil && tempOfSize(dir, 0) != "" {
			pids = victims(cmd.Process.Pid)
		}
		if name := tempOfSize(dir, min); name != "" && pids != nil {
			killed := 0
			for _, pid := range pids {
				if syscall.Kill(pid, syscall.SIGKILL) == nil {
					killed++
				}
			}
			err := <-done
			if _, lerr := os.Lstat(filepath.Join(dir, name)); lerr != nil {
				// Renamed just before the kill (the apply may even have
				// finished first): the moment was missed, try again.
				return ""
			}
			if killed == 0 {
				c.t.Fatalf("no provider process to kill, and %s was left behind:\n%s", name, out.String())
			}
			if err == nil {
				c.t.Fatalf("apply succeeded although its provider was killed, leaving %s:\n%s", name, out.String())
			}
			return name
		}
		time.Sleep(time.Millisecond)
	}
}

// tempOfSize returns the name of the provider's temporary file of big.bin
// in dir once it holds at least min bytes.
func tempOfSize(dir string, min int64) string {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".big.bin.sandbox-tmp-") || e.Name() == ".big.bin.sandbox-tmp-000000000000" {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.Size() >= min {
			return e.Name()
		}
	}
	return ""
}

// children returns the processes whose command name (as /proc shows it, at
// most 15 bytes) starts with comm and that are children of ppid (when not
// 0) and in the control group cgroup (when not "").
func children(ppid int, comm, cgroup string) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var pids []int
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := string(b)
		open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || closing < open {
			continue
		}
		fields := strings.Fields(s[closing+1:]) // state, ppid, ...
		if len(fields) < 2 || (ppid != 0 && fields[1] != strconv.Itoa(ppid)) || !strings.HasPrefix(s[open+1:closing], comm) {
			continue
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(s[:open]))
		if cg, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid)); cgroup != "" && (err != nil || string(cg) != cgroup) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}
