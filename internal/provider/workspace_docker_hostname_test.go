package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// docker.hostname is the container's host name, as the kernel reports it
// inside; an import reads it back; changing it replaces the container.
func TestAccDockerWorkspace_hostname(t *testing.T) {
	t.Parallel()
	e := newDockerEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{
				Config: e.configDocker(`hostname = "grader-01"`, "", ""),
				Check: resource.ComposeTestCheckFunc(
					e.expectSh("cat /proc/sys/kernel/hostname", "grader-01"),
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "docker.hostname", "grader-01"),
				),
			},
			{
				ResourceName: "sandbox_workspace.ws", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"keep_on_destroy", "docker.pull_policy"},
			},
			{
				Config: e.configDocker(`hostname = "grader-02.evals"`, "", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionReplace),
				}},
				Check: e.expectSh("cat /proc/sys/kernel/hostname", "grader-02.evals"),
			},
			{
				// Without hostname, Docker's default, read back as none.
				Config: e.configDocker("", "", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionReplace),
				}},
				Check: resource.TestCheckNoResourceAttr("sandbox_workspace.ws", "docker.hostname"),
			},
			{
				ResourceName: "sandbox_workspace.ws", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"keep_on_destroy", "docker.pull_policy"},
			},
		},
		CheckDestroy: e.checkGone,
	})
}

// A host name that is not one, or one the network mode overrides, fails
// the plan on docker.hostname.
func TestAccDockerWorkspace_hostnameRefused(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	config := func(dockerExtra string) string {
		return `
provider "sandbox" {
  local_base_dir = "` + e.base + `"
}

resource "sandbox_workspace" "ws" {
  docker {
    image = "busybox"
    ` + dockerExtra + `
  }
}
`
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{
				Config: config(`hostname = "-grader"`), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)docker.hostname.*must be a host name`),
			},
			{
				Config: config(`hostname = "grader_01"`), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)docker.hostname.*must be a host name`),
			},
			{
				Config: config("hostname = \"grader\"\n    network_mode = \"host\""), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)Host name with a shared network namespace.*hostname cannot be set with network_mode "host"`),
			},
		},
	})
}
