package provider

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// containerStatus is the container's state as `docker inspect` reports it
// ("running", "exited", "paused", ...).
func containerStatus(t *testing.T, cid string) string {
	t.Helper()
	return dockerCLI(t, "inspect", "-f", "{{.State.Status}}", cid)
}

// copyOut reads a file out of a container, running or not, with docker cp.
func copyOut(cid, p string) (string, error) {
	out, err := exec.Command("sh", "-c", fmt.Sprintf("docker cp %s:%s - | tar -xO", cid, p)).CombinedOutput()
	return string(out), err
}

// errAll matches texts, in order, in Terraform's error output.
func errAll(texts ...string) *regexp.Regexp {
	parts := make([]string, len(texts))
	for i, t := range texts {
		parts[i] = errRe(t).String()
	}
	return regexp.MustCompile(strings.Join(parts, `[\s\S]*`))
}

// expectRunStateDrift is a plan check: the workspace is updated in place
// from the observed run state back to the declared one.
type expectRunStateDrift struct{ from, to string }

func (c expectRunStateDrift) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != "sandbox_workspace.ws" {
			continue
		}
		if !rc.Change.Actions.Update() {
			resp.Error = fmt.Errorf("workspace planned %v, want an in-place update", rc.Change.Actions)
			return
		}
		before, _ := rc.Change.Before.(map[string]any)
		after, _ := rc.Change.After.(map[string]any)
		if before["run_state"] != c.from || after["run_state"] != c.to {
			resp.Error = fmt.Errorf("run_state planned %v -> %v, want %s -> %s", before["run_state"], after["run_state"], c.from, c.to)
		}
		return
	}
	resp.Error = fmt.Errorf("no change planned for sandbox_workspace.ws")
}

// testRunState: a workspace declared stopped (or paused) is so after
// create; an out-of-band start shows as drift that the apply undoes in
// place; a file added and a command run while it is declared so are
// written and run, and the container is put back afterwards; import reads
// the state back.
func testRunState(t *testing.T, state, dockerStatus, undo string) {
	env := newDockerEnv(t)
	cfg := env.config(fmt.Sprintf(`run_state = %q`, state), "")
	withFile := cfg + `
resource "sandbox_file" "f" {
  workspace_id = sandbox_workspace.ws.id
  path         = "while.txt"
  content      = "written while ` + state + `\n"
}
resource "sandbox_command" "c" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "echo ran while ` + state + ` > ran.txt"
}
`
	var cid string
	isDeclared := func(s *terraform.State) error {
		cid = env.container(s)
		if got := containerStatus(t, cid); got != dockerStatus {
			return fmt.Errorf("container is %q after apply, want %q", got, dockerStatus)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: resource.ComposeTestCheckFunc(isDeclared,
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "run_state", state),
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "running", "false")),
			},
			{
				PreConfig: func() { dockerCLI(t, undo, cid) },
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectRunStateDrift{from: "running", to: state},
				}},
				Check: resource.ComposeTestCheckFunc(isDeclared,
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "run_state", state)),
			},
			{
				Config: withFile,
				Check: resource.ComposeTestCheckFunc(isDeclared, func(*terraform.State) error {
					got, err := copyOut(cid, "/workspace/while.txt")
					if err != nil || got != "written while "+state+"\n" {
						return fmt.Errorf("while.txt read back: %q, %w", got, err)
					}
					if got, err := copyOut(cid, "/workspace/ran.txt"); err != nil || got != "ran while "+state+"\n" {
						return fmt.Errorf("ran.txt read back: %q, %w", got, err)
					}
					return nil
				}),
			},
			{
				// pull_policy is not recorded by the daemon; nothing is read
				// inside a stopped container (root_owner); the write woke
				// the container, so it has started since the state was written.
				ResourceName:            "sandbox_workspace.ws",
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"docker.pull_policy", "root_owner", "started_at"},
			},
		},
	})
}

func TestAccDockerWorkspace_runStateStopped(t *testing.T) {
	testRunState(t, "stopped", "exited", "start")
}

func TestAccDockerWorkspace_runStatePaused(t *testing.T) {
	testRunState(t, "paused", "paused", "unpause")
}

// A health check that passes only 3 s after the container started: the
// apply returns once it passes (a command run right after the workspace is
// created sees the check's condition true), and the container is healthy;
// so does an apply that starts the stopped container again.
func TestAccDockerWorkspace_waitUntilHealthy(t *testing.T) {
	env := newDockerEnv(t)
	// Seconds since process 1 started: uptime minus its start in clock ticks.
	const ready = `awk -v s=$(cut -d" " -f22 /proc/1/stat) '{ exit !($1 - s/100 >= 3) }' /proc/uptime`
	cfg := env.configDocker(`
    healthcheck {
      test     = ["CMD-SHELL", `+hclString(ready)+`]
      interval = "300ms"
      timeout  = "5s"
      retries  = 50
    }`, `wait_until = "healthy"`, `
resource "sandbox_command" "probe" {
  workspace_id = sandbox_workspace.ws.id
  shell        = `+hclString("if "+ready+"; then echo ready; else echo early; fi > seen.txt")+`
}
`)
	var cid string
	isHealthy := func(s *terraform.State) error {
		cid = env.container(s)
		if got := dockerCLI(t, "inspect", "-f", "{{.State.Health.Status}}", cid); got != "healthy" {
			return fmt.Errorf("health status %q, want healthy", got)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: resource.ComposeTestCheckFunc(
					env.expectSh("cat /workspace/seen.txt", "ready"),
					isHealthy,
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "docker.healthcheck.interval", "300ms"),
				),
			},
			{
				// Stopped out of band: the apply starts it and returns once
				// it is healthy again.
				PreConfig: func() { dockerCLI(t, "stop", "-t", "0", cid) },
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectRunStateDrift{from: "stopped", to: "running"},
				}},
				Check: isHealthy,
			},
			{
				ResourceName:            "sandbox_workspace.ws",
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"docker.pull_policy"},
			},
		},
	})
}

// A health check that never passes fails the apply with its last output.
func TestAccDockerWorkspace_waitUntilUnhealthy(t *testing.T) {
	env := newDockerEnv(t)
	cfg := env.configDocker(`
    healthcheck {
      test     = ["CMD-SHELL", "echo probe-says-no-$((1+1)); exit 1"]
      interval = "200ms"
      retries  = 2
    }`, `wait_until = "healthy"`, "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config:      cfg,
			ExpectError: errAll(`did not become healthy`, `reported unhealthy`, `probe-says-no-2`),
		}},
	})
	out, _ := exec.Command("docker", "ps", "-aq", "--filter", "label=sandbox.workspace_id").Output()
	for _, id := range strings.Fields(string(out)) {
		if hc := dockerCLI(t, "inspect", "-f", "{{json .Config.Healthcheck}}", id); strings.Contains(hc, "probe-says-no") {
			t.Errorf("container %s of the failed workspace was left behind", id)
		}
	}
}

// Bad run_state, wait_until and healthcheck settings fail the plan on
// their attribute, without a daemon.
func TestAccWorkspace_runStatePlanRefusals(t *testing.T) {
	env := newTestEnv(t)
	docker := func(inner, extra string) string {
		return fmt.Sprintf("docker {\n image = \"busybox\"\n %s\n }\n %s", inner, extra)
	}
	cases := map[string]struct {
		ws   string
		want *regexp.Regexp
	}{
		"unknown run_state":     {docker("", `run_state = "frozen"`), errAll(`run_state`, `value must be one of`)},
		"unknown wait_until":    {docker("", `wait_until = "ready"`), errAll(`wait_until`, `value must be one of`)},
		"healthy without check": {docker("", `wait_until = "healthy"`), errAll(`wait_until = "healthy" waits for the container's health check, and this docker block has none`)},
		"check without test":    {docker(`healthcheck { interval = "1s" }`, ""), errAll(`a healthcheck block needs test`)},
		"check test form":       {docker(`healthcheck { test = ["sh", "-c", "true"] }`, ""), errAll(`test must be ["CMD", program, args...]`)},
		"check duration":        {docker("healthcheck {\n test = [\"CMD\", \"true\"]\n interval = \"soon\"\n }", ""), errAll(`"soon" is not a duration`)},
		"local stopped":         {"local {}\n" + `run_state = "stopped"`, errAll(`run_state = "stopped": a local workspace is a directory`)},
		"local healthy":         {"local {}\n" + `wait_until = "healthy"`, errAll(`a local workspace has no health check`)},
		"stopped tmpfs disk":    {docker(`disk = "64m"`, `run_state = "stopped"`), errAll(`would wipe the workspace root on every stop`)},
		"kubernetes stopped":    {"kubernetes {\n namespace = \"agents\"\n image = \"busybox\"\n }\n" + `run_state = "stopped"`, errAll(`a Kubernetes pod cannot be stopped`, `destroy the workspace`)},
		"kubernetes paused":     {"kubernetes {\n namespace = \"agents\"\n image = \"busybox\"\n }\n" + `run_state = "paused"`, errAll(`run_state = "paused": a Kubernetes pod cannot be stopped`)},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
resource "sandbox_workspace" "ws" {
  %s
}
`, env.base, c.ws),
					PlanOnly:    true,
					ExpectError: c.want,
				}},
			})
		})
	}
}
