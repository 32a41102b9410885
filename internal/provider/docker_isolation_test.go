package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
)

// inspectHost returns the workspace container's host configuration.
func (e *dockerEnv) inspectHost(s *terraform.State) (*container.HostConfig, error) {
	res, err := dockertest.Client().ContainerInspect(context.Background(), e.container(s), client.ContainerInspectOptions{})
	if err != nil {
		return nil, err
	}
	return res.Container.HostConfig, nil
}

// expectHost checks the container's host configuration with check.
func (e *dockerEnv) expectHost(check func(*container.HostConfig) error) func(*terraform.State) error {
	return func(s *terraform.State) error {
		hc, err := e.inspectHost(s)
		if err != nil {
			return err
		}
		return check(hc)
	}
}

func expectLimits(memory, swap, nanoCPUs, pids int64) func(*container.HostConfig) error {
	return func(hc *container.HostConfig) error {
		var gotPids int64
		if hc.PidsLimit != nil {
			gotPids = *hc.PidsLimit
		}
		if hc.Memory != memory || hc.MemorySwap != swap || hc.NanoCPUs != nanoCPUs || gotPids != pids {
			return fmt.Errorf("docker inspect: Memory %d MemorySwap %d NanoCpus %d PidsLimit %d; want %d %d %d %d",
				hc.Memory, hc.MemorySwap, hc.NanoCPUs, gotPids, memory, swap, nanoCPUs, pids)
		}
		return nil
	}
}

// forkLoop starts sleeps until the pids limit stops the shell starting
// them, then kills them with builtins only (nothing can fork meanwhile)
// and reports how many started, the peak process count and the limit.
const forkLoop = `
resource "sandbox_command" "forks" {
  workspace_id = sandbox_workspace.ws.id
  shell        = <<-EOT
    rm -f /tmp/pids
    sh -c 'i=0; while [ $i -lt 150 ]; do sleep 60 & echo $! >> /tmp/pids; i=$((i+1)); done' 2>/tmp/fork.err
    read peak < /sys/fs/cgroup/pids/pids.current
    while read p; do kill $p; done < /tmp/pids
    wait
    echo "started=$(wc -l < /tmp/pids) peak=$peak max=$(cat /sys/fs/cgroup/pids/pids.max) $(grep -c "can't fork" /tmp/fork.err)"
  EOT
}
`

// A command allocating 256 MiB in a 64 MiB workspace.
const memoryHog = `
resource "sandbox_command" "hog" {
  workspace_id = sandbox_workspace.ws.id
  shell        = <<-EOT
    x=$(head -c 268435456 /dev/zero | tr '\000' a); echo $${#x}
  EOT
}
`

const alive = `
resource "sandbox_command" "alive" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "echo alive"
}
`

// memory, pids_limit and cpus reach the container; the out-of-memory kill
// of a command is reported as such and the workspace answers the next one;
// a fork loop stops at pids_limit; a limit change is applied in place; an
// import reads every limit back.
func TestAccDockerIsolation_limits(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	limits := func(mem string, pids int) string {
		return fmt.Sprintf("memory = %q\n    pids_limit = %d\n    cpus = 0.5", mem, pids)
	}
	var first string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: env.configDocker(limits("64m", 64), "", forkLoop),
				Check: resource.ComposeTestCheckFunc(
					env.expectHost(expectLimits(64<<20, 64<<20, 5e8, 64)),
					resource.TestMatchResourceAttr("sandbox_command.forks", "stdout", regexp.MustCompile(`^started=\d+ peak=(\d+) max=64 [1-9]`)),
					func(s *terraform.State) error {
						first = env.container(s)
						out := s.RootModule().Resources["sandbox_command.forks"].Primary.Attributes["stdout"]
						var started, peak, limit, errs int
						if _, err := fmt.Sscanf(out, "started=%d peak=%d max=%d %d", &started, &peak, &limit, &errs); err != nil {
							return fmt.Errorf("fork loop output %q: %w", out, err)
						}
						if started >= 64 || peak > 64 {
							return fmt.Errorf("fork loop started %d processes, peak %d, with pids_limit 64", started, peak)
						}
						return nil
					},
				),
			},
			{
				Config:      env.configDocker(limits("64m", 64), "", memoryHog),
				ExpectError: regexp.MustCompile(`(?s)exited with code 137.*ran out of memory`),
			},
			{
				Config: env.configDocker(limits("64m", 64), "", alive),
				Check:  resource.TestCheckResourceAttr("sandbox_command.alive", "stdout", "alive\n"),
			},
			{
				// memory and pids_limit change in place: same container.
				Config: env.configDocker(limits("96m", 100), "", alive),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeTestCheckFunc(
					env.expectHost(expectLimits(96<<20, 96<<20, 5e8, 100)),
					func(s *terraform.State) error {
						if id := env.container(s); id != first {
							return fmt.Errorf("the limit change replaced container %s with %s", first, id)
						}
						return nil
					},
				),
			},
			{ResourceName: "sandbox_workspace.ws", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"keep_on_destroy", "docker.pull_policy"}},
			{
				// Drift: a limit changed behind Terraform's back shows in the
				// plan, which changes nothing.
				PreConfig: func() {
					mem := int64(128 << 20)
					_, err := dockertest.Client().ContainerUpdate(context.Background(), first, client.ContainerUpdateOptions{
						Resources: &container.Resources{Memory: mem, MemorySwap: mem}})
					if err != nil {
						t.Fatal(err)
					}
				},
				Config:             env.configDocker(limits("96m", 100), "", alive),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: env.configDocker(limits("96m", 100), "", alive),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("sandbox_workspace.ws", tfjsonpath.New("docker").AtMapKey("memory"), knownvalue.StringExact("96m")),
				},
				Check: env.expectHost(expectLimits(96<<20, 96<<20, 5e8, 100)),
			},
			{
				// Removing a limit replaces the container: docker update
				// cannot lift one.
				Config: env.configDocker("memory = \"96m\"\n    pids_limit = 100", "", alive),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionReplace),
				}},
				Check: env.expectHost(expectLimits(96<<20, 96<<20, 0, 100)),
			},
		},
		CheckDestroy: env.checkGone,
	})
}

const fillDisk = `
resource "sandbox_command" "fill" {
  workspace_id             = sandbox_workspace.ws.id
  shell                    = "dd if=/dev/zero of=big bs=1M count=64 2>&1; echo rc=$?; wc -c < big"
  allow_non_zero_exit_code = true
}

resource "sandbox_command" "free" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "rm big"
  depends_on   = [sandbox_command.fill]
}

resource "sandbox_file" "small" {
  workspace_id = sandbox_workspace.ws.id
  path         = "small.txt"
  content      = "still writable\n"
  depends_on   = [sandbox_command.free]
}
`

// shm_size, tmpfs and ulimits as a command in the workspace sees them. The
// nofile soft limit is read from process 1: runc 1.1's exec occasionally
// raises it to the hard limit for an exec'd process (opencontainers/runc#4195).
const mountsSeen = `
resource "sandbox_command" "mounts" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "echo $(awk '/^Max open files/ { print $4, $5 }' /proc/1/limits) $(ulimit -Hn); df -k /dev/shm /scratch | awk 'NR > 1 { print $6, $2 }'"
}
`

const diskAndMounts = `disk = "32m"
    shm_size = "16m"
    tmpfs    = { "/scratch" = "size=8m" }
    ulimits  = { nofile = "1024:2048" }`

// disk = "32m": a 64 MiB write gets ENOSPC and stops at 32 MiB, and the
// workspace still takes a file afterwards; shm_size, tmpfs and ulimits
// reach the container; every one is read back on import.
func TestAccDockerIsolation_disk(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config:      env.configDocker(`disk = "512k"`, "", ""),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Unusable isolation setting.*disk = "512k".*512k is below the minimum of 1m`),
			},
			{
				// Zero is Docker's "no limit": refused rather than silently unlimited.
				Config:      env.configDocker(`disk = "0"`, "", ""),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid size.*disk = "0" is zero bytes, which Docker\s+takes as no limit`),
			},
			{
				Config: env.configDocker(diskAndMounts, "", fillDisk+mountsSeen),
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("sandbox_command.mounts", "stdout",
						"1024 2048 2048\n/dev/shm 16384\n/scratch 8192\n"),
					resource.TestMatchResourceAttr("sandbox_command.fill", "stdout",
						regexp.MustCompile(`No space left on device\n(?:.*\n)*rc=1\n(\d+)\n$`)),
					func(s *terraform.State) error {
						out := s.RootModule().Resources["sandbox_command.fill"].Primary.Attributes["stdout"]
						var size int64
						if _, err := fmt.Sscanf(out[strings.LastIndex(out, "rc=1\n")+5:], "%d", &size); err != nil || size > 32<<20 || size == 0 {
							return fmt.Errorf("the 64 MiB write left %d bytes (%w) in a 32 MiB root:\n%s", size, err, out)
						}
						return nil
					},
					env.expectSh("cat /workspace/small.txt; ls /workspace", "still writable\nsmall.txt"),
					env.expectHost(func(hc *container.HostConfig) error {
						if !strings.Contains(hc.Tmpfs["/workspace"], "size=33554432") {
							return fmt.Errorf("docker inspect: Tmpfs %v", hc.Tmpfs)
						}
						return nil
					}),
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "docker.disk", "32m"),
				),
			},
			{ResourceName: "sandbox_workspace.ws", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"keep_on_destroy", "docker.pull_policy"}},
		},
		CheckDestroy: env.checkGone,
	})
}

// A Docker workspace that sets no pids_limit gets 1024: docker inspect
// shows it, and a fork loop of 1,100 sleeps stops below it. -1 lifts it in
// place (same container), and an import reads it back.
func TestAccDockerIsolation_defaultPidsLimit(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	forks := strings.Replace(forkLoop, "-lt 150", "-lt 1100", 1)
	var first string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: env.configDocker("", "", forks),
				Check: resource.ComposeTestCheckFunc(
					env.expectHost(expectLimits(0, 0, 0, 1024)),
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "docker.pids_limit", "1024"),
					func(s *terraform.State) error {
						first = env.container(s)
						out := s.RootModule().Resources["sandbox_command.forks"].Primary.Attributes["stdout"]
						var started, peak, limit, errs int
						if _, err := fmt.Sscanf(out, "started=%d peak=%d max=%d %d", &started, &peak, &limit, &errs); err != nil {
							return fmt.Errorf("fork loop output %q: %w", out, err)
						}
						if limit != 1024 || started >= 1024 || peak > 1024 || errs == 0 {
							return fmt.Errorf("fork loop of 1100 started %d processes, peak %d, max %d, %d failed forks; want fewer than 1024 started",
								started, peak, limit, errs)
						}
						return nil
					},
				),
			},
			{
				Config: env.configDocker("pids_limit = -1", "", alive),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "docker.pids_limit", "-1"),
					env.expectHost(func(hc *container.HostConfig) error {
						if hc.PidsLimit != nil && *hc.PidsLimit > 0 {
							return fmt.Errorf("docker inspect: PidsLimit %d after pids_limit = -1", *hc.PidsLimit)
						}
						return nil
					}),
					func(s *terraform.State) error {
						if id := env.container(s); id != first {
							return fmt.Errorf("lifting the limit replaced container %s with %s", first, id)
						}
						return nil
					},
				),
			},
			{ResourceName: "sandbox_workspace.ws", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"keep_on_destroy", "docker.pull_policy"}},
		},
		CheckDestroy: env.checkGone,
	})
}
