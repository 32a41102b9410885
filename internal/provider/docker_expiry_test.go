package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
)

func inspectContainer(id string) (container.InspectResponse, bool, error) {
	res, err := dockertest.Client().ContainerInspect(context.Background(), id, client.ContainerInspectOptions{})
	if cerrdefs.IsNotFound(err) {
		return container.InspectResponse{}, false, nil
	}
	return res.Container, err == nil, err
}

// checkExpiringContainer: the container runs, labelled with the state's
// expires_at, kept alive by the helper's keep-alive, auto-removed or not.
func checkExpiringContainer(t *testing.T, e *dockerEnv, lifetime time.Duration, autoRemove bool, id *string, at *time.Time) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		if err := expiresAtOf(t, s, "sandbox_workspace.ws", lifetime, at); err != nil {
			return err
		}
		*id = e.container(s)
		c, ok, err := inspectContainer(*id)
		if err != nil {
			return fmt.Errorf("inspecting %s: %w", *id, err)
		}
		if !ok {
			return fmt.Errorf("container %s is gone", *id)
		}
		if !c.State.Running {
			return fmt.Errorf("container %s is %s, not running", *id, c.State.Status)
		}
		want := s.RootModule().Resources["sandbox_workspace.ws"].Primary.Attributes["expires_at"]
		if got := c.Config.Labels["sandbox.expires_at"]; got != want {
			return fmt.Errorf("label sandbox.expires_at = %q, state expires_at = %q", got, want)
		}
		if c.HostConfig.AutoRemove != autoRemove {
			return fmt.Errorf("AutoRemove = %v, want %v", c.HostConfig.AutoRemove, autoRemove)
		}
		return nil
	}
}

// waitStopped waits until the container has stopped by itself after at,
// and checks it stopped at its deadline, not before.
func waitStopped(t *testing.T, id string, at time.Time) {
	t.Helper()
	sleepUntil(at)
	for end := at.Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		c, ok, err := inspectContainer(id)
		if err != nil || !ok {
			t.Fatalf("container %s after its expiry: found %v, %v", id, ok, err)
		}
		if !c.State.Running && !c.State.Restarting {
			fin, _ := time.Parse(time.RFC3339Nano, c.State.FinishedAt)
			if fin.Before(at.Add(-time.Second)) {
				t.Fatalf("container %s stopped at %s, before its expiry %s", id, c.State.FinishedAt, at)
			}
			if c.State.Status != "exited" || c.State.ExitCode != 0 {
				t.Fatalf("container %s is %s with exit code %d", id, c.State.Status, c.State.ExitCode)
			}
			return
		}
		if time.Now().After(end) {
			t.Fatalf("container %s still runs 15 s after its expiry %s", id, at)
		}
	}
}

// startAgain starts the expired container as `docker start` would and
// checks that it does not stay up: its keep-alive exits at once.
func startAgain(t *testing.T, id string) {
	t.Helper()
	if _, err := dockertest.Client().ContainerStart(context.Background(), id, client.ContainerStartOptions{}); err != nil {
		t.Fatalf("docker start %s: %v", id, err)
	}
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		c, _, err := inspectContainer(id)
		if err != nil {
			t.Fatal(err)
		}
		if !c.State.Running {
			st, _ := time.Parse(time.RFC3339Nano, c.State.StartedAt)
			fin, _ := time.Parse(time.RFC3339Nano, c.State.FinishedAt)
			if d := fin.Sub(st); d > 3*time.Second || d < 0 {
				t.Fatalf("restarted container %s ran %s (%s to %s), want an immediate exit", id, d, c.State.StartedAt, c.State.FinishedAt)
			}
			return
		}
		if time.Now().After(end) {
			t.Fatalf("container %s started after its expiry still runs after 10 s", id)
		}
	}
}

// A workspace with a lifetime stops by itself at expires_at, with no
// Terraform run in between; docker start does not revive it; the next plan
// warns that it expired and replaces it.
func TestAccDockerWorkspace_lifetimeStops(t *testing.T) {
	e := newDockerEnv(t)
	log := &warningLog{}
	var first string
	var at time.Time
	cfg := e.config(`lifetime = "15s"`, "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: recordingFactories(log),
		Steps: []resource.TestStep{
			{Config: cfg, Check: checkExpiringContainer(t, e, 15*time.Second, false, &first, &at)},
			// The labels give lifetime and expires_at back (the container
			// may have expired by now: running and started_at may differ).
			{
				ResourceName: "sandbox_workspace.ws", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"keep_on_destroy", "docker.pull_policy", "running", "started_at"},
			},
			{
				PreConfig: func() {
					waitStopped(t, first, at)
					startAgain(t, first)
					log.reset()
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionReplace),
					expectWarning{log, func() []string { return []string{"Workspace expired", "expired at " + at.Format(time.RFC3339)} }},
				}},
				Check: func(s *terraform.State) error {
					var next time.Time
					var id string
					if err := checkExpiringContainer(t, e, 15*time.Second, false, &id, &next)(s); err != nil {
						return err
					}
					if id == first || !next.After(at) {
						return fmt.Errorf("not re-created: container %s (was %s), expires_at %s (was %s)", id, first, next, at)
					}
					return nil
				},
			},
		},
		CheckDestroy: e.checkGone,
	})
}

// With on_expiry = "remove" the daemon removes the container at its
// expiry; the next plan creates the workspace again, saying it expired.
func TestAccDockerWorkspace_lifetimeRemoves(t *testing.T) {
	e := newDockerEnv(t)
	log := &warningLog{}
	var first string
	var at time.Time
	cfg := e.config(`
  lifetime  = "15s"
  on_expiry = "remove"`, "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: recordingFactories(log),
		Steps: []resource.TestStep{
			{Config: cfg, Check: checkExpiringContainer(t, e, 15*time.Second, true, &first, &at)},
			{
				PreConfig: func() {
					sleepUntil(at)
					for end := at.Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
						_, ok, err := inspectContainer(first)
						if err != nil {
							t.Fatal(err)
						}
						if !ok {
							break
						}
						if time.Now().After(end) {
							t.Fatalf("container %s still exists 15 s after its expiry %s", first, at)
						}
					}
					log.reset()
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionCreate),
					expectWarning{log, func() []string { return []string{"Workspace expired", "expired at " + at.Format(time.RFC3339)} }},
				}},
				Check: func(s *terraform.State) error {
					var id string
					var next time.Time
					if err := checkExpiringContainer(t, e, 15*time.Second, true, &id, &next)(s); err != nil {
						return err
					}
					if id == first {
						return fmt.Errorf("container %s was not re-created", id)
					}
					return nil
				},
			},
		},
		CheckDestroy: e.checkGone,
	})
}

// A restart policy does not bring an expired container back: the daemon
// restarts it, and its keep-alive exits at once every time.
func TestAccDockerWorkspace_lifetimeRestartPolicy(t *testing.T) {
	e := newDockerEnv(t)
	var first string
	var at time.Time
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{
				Config: e.configDocker(`restart_policy = "always"`, `lifetime = "10s"`, ""),
				Check: resource.ComposeTestCheckFunc(checkExpiringContainer(t, e, 10*time.Second, false, &first, &at),
					func(*terraform.State) error {
						// Every start after the expiry (the policy's) ends at
						// once: a run in progress is younger than 2 s, and the
						// last one that ended (the daemon shows Restarting,
						// with Running still true) lasted less than 2 s.
						sleepUntil(at.Add(2 * time.Second))
						var c container.InspectResponse
						for range 40 {
							var err error
							if c, _, err = inspectContainer(first); err != nil {
								return err
							}
							st, _ := time.Parse(time.RFC3339Nano, c.State.StartedAt)
							fin, _ := time.Parse(time.RFC3339Nano, c.State.FinishedAt)
							switch {
							case c.State.Status == "running" && time.Since(st) > 2*time.Second:
								return fmt.Errorf("the expired container has been running since %s", c.State.StartedAt)
							case c.State.Status != "running" && fin.Sub(st) > 2*time.Second:
								return fmt.Errorf("the expired container's last run lasted %s (%s to %s)", fin.Sub(st), c.State.StartedAt, c.State.FinishedAt)
							}
							time.Sleep(100 * time.Millisecond)
						}
						if c.RestartCount < 1 {
							return fmt.Errorf("the daemon never restarted the expired container (restart count %d)", c.RestartCount)
						}
						return nil
					}),
				// The refresh after the apply finds it expired: a replacement.
				ExpectNonEmptyPlan: true,
			},
		},
		CheckDestroy: e.checkGone,
	})
}

// Bad lifetimes and on_expiry fail the plan on the attribute.
func TestAccWorkspace_lifetimeValidation(t *testing.T) {
	e := newTestEnv(t)
	cases := []struct{ extra, line, want string }{
		{`lifetime = "-5m"`, `lifetime = "-5m"`, `lifetime "-5m" must be positive`},
		{`lifetime = "0s"`, `lifetime = "0s"`, `lifetime "0s" must be positive`},
		{`lifetime = "soon"`, `lifetime = "soon"`, `lifetime "soon" is not a duration`},
		{`on_expiry = "stop"`, `on_expiry = "stop"`, `set lifetime`},
		{"lifetime = \"1h\"\n  on_expiry = \"delete\"", `on_expiry = "delete"`, `value must be one of`},
	}
	var steps []resource.TestStep
	for _, c := range cases {
		steps = append(steps, resource.TestStep{
			Config: fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
resource "sandbox_workspace" "ws" {
  local {}
  %s
}`, e.base, c.extra),
			PlanOnly:    true,
			ExpectError: attrError(c.line, c.want),
		})
	}
	steps = append(steps, resource.TestStep{
		Config: fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
resource "sandbox_workspace" "ws" {
  docker {
    image          = "sandbox-test/busybox"
    restart_policy = "always"
  }
  lifetime  = "1h"
  on_expiry = "remove"
}`, e.base),
		PlanOnly:    true,
		ExpectError: attrError(`on_expiry = "remove"`, `conflicts with on_expiry = "remove"`),
	})
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: protoV6Factories, Steps: steps})
}

// attrError matches an error the CLI shows on the configuration line line
// (an attribute-scoped diagnostic), whose text holds msg however the CLI
// wraps it.
func attrError(line, msg string) *regexp.Regexp {
	words := strings.Fields(msg)
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	return regexp.MustCompile(`(?s)` + regexp.QuoteMeta(line) + `.*` + strings.Join(words, `\s+`))
}
