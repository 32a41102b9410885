package provider

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/moby/moby/api/types/container"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
)

// A runtime the daemon does not have fails the plan, naming those it has;
// so does a pids_limit below what the provider's own docker exec needs.
func TestAccDockerIsolation_planRefusals(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{{
			Config:      env.configDocker(`runtime = "no-such-runtime"`, "", ""),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Unknown runtime.*no\s+runtime\s+"no-such-runtime";\s+it\s+has\s+.*\brunc\b`),
		}, {
			Config:      env.configDocker("pids_limit = 5", "", ""),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)pids_limit.*5 is below the minimum of 16`),
		}},
	})
}

// requireRunsc skips the test (fails it under CI=true) when the daemon has
// no runsc runtime; scripts/docker-up.sh registers it.
func requireRunsc(t *testing.T) {
	t.Helper()
	names, _, err := dockertest.Daemon().Runtimes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(names, "runsc") {
		msg := "the Docker daemon has no runsc runtime (it has " + strings.Join(names, ", ") + "); make test-deps registers Debian's runsc"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

// A workspace under gVisor: its kernel is gVisor's, and entries and
// commands work through it.
func TestAccDockerIsolation_gvisor(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	requireRunsc(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: env.configDocker("runtime = \"runsc\"\n    network_mode = \"none\"\n    memory = \"256m\"", "", `
resource "sandbox_file" "f" {
  workspace_id = sandbox_workspace.ws.id
  path         = "f.txt"
  content      = "under gVisor\n"
}

resource "sandbox_command" "kernel" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "cat f.txt; dmesg | grep -c gVisor"
  depends_on   = [sandbox_file.f]
}
`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("sandbox_workspace.ws", tfjsonpath.New("docker").AtMapKey("runtime"), knownvalue.StringExact("runsc")),
				},
				Check: resource.ComposeTestCheckFunc(
					env.expectHost(func(hc *container.HostConfig) error {
						if hc.Runtime != "runsc" {
							return fmt.Errorf("docker inspect: Runtime %q", hc.Runtime)
						}
						return nil
					}),
					resource.TestMatchResourceAttr("sandbox_command.kernel", "stdout", regexp.MustCompile(`^under gVisor\n[1-9]\d*\n$`)),
				),
			},
			{ResourceName: "sandbox_workspace.ws", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"keep_on_destroy", "docker.pull_policy"}},
		},
		CheckDestroy: env.checkGone,
	})
}
