package provider

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// timedOut is the error of an operation that ran out of time: it names the
// attribute to raise.
func timedOut(op string) *regexp.Regexp {
	return regexp.MustCompile(`Timed out after \S+: raise timeouts\.` + op)
}

// writeSlowTree fills dir with files enough that copying them takes well
// over a second anywhere: 96 files of 8 MiB, each with its own bytes (so
// nothing is sparse or deduplicated).
func writeSlowTree(t *testing.T, dir string) int {
	t.Helper()
	const files, size = 96, 8 << 20
	buf := make([]byte, 1<<20)
	for i := range files {
		for j := range buf {
			buf[j] = byte(i*31 + j*7)
		}
		p := filepath.Join(dir, fmt.Sprintf("part-%02d", i/10), fmt.Sprintf("blob-%03d.bin", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		for range size / len(buf) {
			if _, err := f.Write(buf); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// leftovers walks root and returns the temporary files of atomic writes
// and the regular files below sub.
func leftovers(root, sub string) (temps, files []string, err error) {
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.Contains(d.Name(), ".sandbox-tmp-") {
			temps = append(temps, p)
		}
		if d.Type().IsRegular() && strings.HasPrefix(p, filepath.Join(root, sub)+string(filepath.Separator)) {
			files = append(files, p)
		}
		return nil
	})
	return temps, files, err
}

// A copy that outlives timeouts.create fails naming it, leaves no
// temporary or partial file in the workspace, and the next apply with a
// larger timeout converges.
func TestAccLocalDir_createTimeout(t *testing.T) {
	env := newTestEnv(t)
	src := filepath.Join(env.src, "big")
	n := writeSlowTree(t, src)
	cfg := func(timeout string) string {
		return env.config(fmt.Sprintf(`
resource "sandbox_local_dir" "d" {
  workspace_id = sandbox_workspace.ws.id
  path         = "data"
  source       = %q
  timeouts {
    create = %q
  }
}
`, src, timeout))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{Config: cfg("1s"), ExpectError: timedOut("create")},
			{
				PreConfig: func() {
					temps, files, err := leftovers(env.wsRoot(), "data")
					if err != nil {
						t.Fatal(err)
					}
					if len(temps) > 0 || len(files) > 0 {
						t.Fatalf("the timed-out copy left temporary files %v and copied files %v", temps, files)
					}
				},
				Config: cfg("10m"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("sandbox_local_dir.d", plancheck.ResourceActionCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: func(*terraform.State) error {
					temps, files, err := leftovers(env.wsRoot(), "data")
					if err != nil {
						return err
					}
					if len(temps) > 0 || len(files) != n {
						return fmt.Errorf("after the copy: %d files (want %d), temporary files %v", len(files), n, temps)
					}
					return nil
				},
			},
		},
	})
}

// commandPidConfig runs a sleep whose pid lands in the workspace, under a
// create timeout far shorter than the command's own.
const commandSleep = `
resource "sandbox_command" "c" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "sleep 301 & echo $! > sleep.pid; wait"
  timeout      = 600
  timeouts {
    create = "3s"
  }
}
`

// A command cut off by timeouts.create is killed with every process it
// started: on the host, nothing of its process group is left.
func TestAccCommand_createTimeoutKillsLocal(t *testing.T) {
	env := newTestEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{Config: env.config("")},
			{Config: env.config(commandSleep), ExpectError: timedOut("create")},
			{
				Config: env.config(""),
				Check: func(*terraform.State) error {
					raw, err := os.ReadFile(filepath.Join(env.wsRoot(), "sleep.pid"))
					if err != nil {
						return fmt.Errorf("the command did not start: %w", err)
					}
					pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
					if err != nil {
						return err
					}
					return checkNoProcess(pid, "sleep")
				},
			},
		},
	})
}

// checkNoProcess fails when pid is still a live (not zombie) process
// running name.
func checkNoProcess(pid int, name string) error {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
		return nil
	}
	if strings.HasPrefix(string(cmdline), name+"\x00") {
		return fmt.Errorf("process %d (%q) still runs after the timed-out apply", pid, strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return nil // the pid was reused by another program
}

// In a container, the exec'd command and what it started are killed too:
// closing the exec's connection alone would leave them running.
func TestAccDocker_commandCreateTimeoutKills(t *testing.T) {
	env := newDockerEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{Config: env.config("", "")},
			{Config: env.config("", commandSleep), ExpectError: timedOut("create")},
			{
				Config: env.config("", ""),
				Check: resource.ComposeTestCheckFunc(
					env.expectSh(`test -s /workspace/sleep.pid && echo started`, "started"),
					// Every process's command line; the scan's own lines do
					// not start with "sleep".
					env.expectSh(`for f in /proc/[0-9]*/cmdline; do tr '\0' ' ' < "$f"; echo; done | grep -c '^sleep 301' || true`, "0"),
				),
			},
		},
		CheckDestroy: env.checkGone,
	})
}

// Durations are checked at plan time, on the attribute, for every resource
// with a timeouts block.
func TestAccTimeouts_invalidDurations(t *testing.T) {
	env := newTestEnv(t)
	bodies := map[string]string{
		"sandbox_workspace": `resource "sandbox_workspace" "x" {
  local {}
  timeouts {
    %s
  }
}`,
		"sandbox_local_dir": `resource "sandbox_local_dir" "x" {
  workspace_id = sandbox_workspace.ws.id
  path         = "d"
  source       = "` + env.src + `"
  timeouts {
    %s
  }
}`,
		"sandbox_git_repo": `resource "sandbox_git_repo" "x" {
  workspace_id = sandbox_workspace.ws.id
  path         = "repo"
  repo         = "o/r"
  ref          = "0123456789abcdef0123456789abcdef01234567"
  url          = "https://127.0.0.1:1/o/r.git"
  timeouts {
    %s
  }
}`,
		"sandbox_command": `resource "sandbox_command" "x" {
  workspace_id = sandbox_workspace.ws.id
  command      = ["true"]
  timeouts {
    %s
  }
}`,
		"sandbox_snapshot": `resource "sandbox_snapshot" "x" {
  workspace_id = sandbox_workspace.ws.id
  local { base_path = "` + env.src + `" }
  timeouts {
    %s
  }
}`,
	}
	var steps []resource.TestStep
	for name, body := range bodies {
		for _, c := range []struct{ value, summary, detail string }{
			{`create = "soon"`, `Invalid Attribute Value Time Duration`, `"soon" must be a string`},
			{`create = "0s"`, `Invalid timeout`, `"0s" is not a positive duration`},
			{`create = "-5m"`, `Invalid timeout`, `"-5m" is not a positive duration`},
		} {
			steps = append(steps, resource.TestStep{
				Config: env.config(fmt.Sprintf(body, c.value)), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)` + regexp.QuoteMeta(c.summary) + `.*with ` + name + `\.x,.*` +
					regexp.QuoteMeta(c.value) + `.*` + regexp.QuoteMeta(c.detail)),
			})
		}
	}
	steps = append(steps, resource.TestStep{ // delete and read where the resource has them
		Config: env.config(fmt.Sprintf(bodies["sandbox_snapshot"], `read = "1h"
    delete = "later"`)),
		PlanOnly: true, ExpectError: regexp.MustCompile(`(?s)Invalid Attribute Value Time Duration.*"later"`),
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps:                    steps,
	})
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Second: "1s", 20 * time.Minute: "20m", time.Hour: "1h", 90 * time.Minute: "1h30m",
		90 * time.Second: "1m30s", 1500 * time.Millisecond: "1.5s",
	} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%s) = %q, want %q", d, got, want)
		}
	}
}

// An operation that ran out of time reports one error on timeouts.<op>,
// keeping what was under way and the warnings; one that did not is left
// as it is.
func TestOpTimerFinish(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	timer := &opTimer{op: opDelete, timeout: 90 * time.Second, ctx: ctx}
	var diags diag.Diagnostics
	diags.AddWarning("kept", "a warning")
	diags.AddError("Removing data failed", "remove data/x: context deadline exceeded")
	timer.finish("Removing sandbox_local_dir", &diags)
	if len(diags) != 2 || diags.ErrorsCount() != 1 || diags.WarningsCount() != 1 {
		t.Fatalf("diagnostics %v", diags)
	}
	e := diags.Errors()[0]
	wp, ok := e.(diag.DiagnosticWithPath)
	if !ok || !wp.Path().Equal(path.Root("timeouts").AtName("delete")) {
		t.Errorf("error not on timeouts.delete: %#v", e)
	}
	if e.Summary() != "Timed out after 1m30s: raise timeouts.delete" ||
		!strings.Contains(e.Detail(), `within timeouts.delete = "1m30s"`) ||
		!strings.Contains(e.Detail(), "Stopped while: Removing data failed: remove data/x: context deadline exceeded") {
		t.Errorf("error %q: %q", e.Summary(), e.Detail())
	}

	live := &opTimer{op: opCreate, timeout: time.Hour, ctx: context.Background()}
	var other diag.Diagnostics
	other.AddError("Copy failed", "disk full")
	live.finish("The create", &other)
	if len(other) != 1 || other[0].Summary() != "Copy failed" {
		t.Errorf("an error within the time changed: %v", other)
	}
	var nilTimer *opTimer
	nilTimer.finish("nothing", &other)
}
