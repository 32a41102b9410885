package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// An update in place (a memory limit) keeps the container and its ports,
// so the plan shows the endpoints as they are, not "known after apply";
// a change of exposed_ports (a new container) still plans them unknown.
func TestAccDockerWorkspace_endpointsKnownOnUpdate(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	const addr = "sandbox_workspace.ws"
	var hostPort string
	cfg := func(memory, ports string) string {
		return env.configDocker(fmt.Sprintf("memory = %q", memory), "exposed_ports = "+ports, "")
	}
	hostPortNow := func(s *terraform.State) error {
		hostPort = s.RootModule().Resources[addr].Primary.Attributes["endpoints.0.host_port"]
		if hostPort == "" || hostPort == "0" {
			return fmt.Errorf("no host port in state")
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{Config: cfg("64m", "[8080]"), Check: resource.ComposeTestCheckFunc(func(s *terraform.State) error { env.container(s); return nil }, hostPortNow)},
			{
				Config: cfg("96m", "[8080]"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("endpoints").AtSliceIndex(0).AtMapKey("port"), knownvalue.Int64Exact(8080)),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("endpoints").AtSliceIndex(0).AtMapKey("host"), knownvalue.StringExact("127.0.0.1")),
				}},
				Check: func(s *terraform.State) error {
					if got := s.RootModule().Resources[addr].Primary.Attributes["endpoints.0.host_port"]; got != hostPort {
						return fmt.Errorf("host port %s after the update, %s before", got, hostPort)
					}
					return nil
				},
			},
			{
				Config: cfg("96m", "[8080, 9090]"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionReplace),
					plancheck.ExpectUnknownValue(addr, tfjsonpath.New("endpoints")),
				}},
				Check: resource.ComposeTestCheckFunc(func(s *terraform.State) error { env.container(s); return nil },
					resource.TestCheckResourceAttr(addr, "endpoints.#", "2")),
			},
		},
	})
}
