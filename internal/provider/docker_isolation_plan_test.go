package provider

import (
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/moby/moby/api/types/container"
)

// runtime = "runc", the daemon's default named explicitly, reads back as
// named: the next plan is empty and import gives it back.
func TestAccDockerIsolation_defaultRuntimeNamed(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	cfg := env.configDocker(`runtime = "runc"`, "", alive)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("sandbox_workspace.ws", tfjsonpath.New("docker").AtMapKey("runtime"), knownvalue.StringExact("runc")),
				},
				Check: env.expectHost(func(hc *container.HostConfig) error {
					if hc.Runtime != "runc" {
						return fmt.Errorf("docker inspect: Runtime %q", hc.Runtime)
					}
					return nil
				}),
			},
			{Config: cfg, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
			{ResourceName: "sandbox_workspace.ws", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"keep_on_destroy", "docker.pull_policy"}},
			{
				// Unset on a container of the default runtime stays null.
				Config: env.configDocker("", "", alive),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("sandbox_workspace.ws", tfjsonpath.New("docker").AtMapKey("runtime"), knownvalue.Null()),
				},
			},
			{Config: env.configDocker("", "", alive),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		},
		CheckDestroy: env.checkGone,
	})
}

// Sizes compare by byte count: "64m" respelled "65536k" and "16m" "16M"
// is no change, and the container keeps its limits.
func TestAccDockerIsolation_sizeRespelled(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	sizes := func(mem, shm string) string { return fmt.Sprintf("memory = %q\n    shm_size = %q", mem, shm) }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{Config: env.configDocker(sizes("64m", "16m"), "", alive), Check: env.expectHost(expectLimits(64<<20, 64<<20, 0, defaultPidsLimit))},
			{
				Config:           env.configDocker(sizes("65536k", "16M"), "", alive),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("sandbox_workspace.ws", tfjsonpath.New("docker").AtMapKey("memory"), knownvalue.StringExact("64m")),
				},
				Check: env.expectHost(func(hc *container.HostConfig) error {
					if hc.Memory != 64<<20 || hc.ShmSize != 16<<20 {
						return fmt.Errorf("docker inspect: Memory %d, ShmSize %d", hc.Memory, hc.ShmSize)
					}
					return nil
				}),
			},
			{
				// A different byte count still changes the limit in place.
				Config: env.configDocker(sizes("98304k", "16M"), "", alive),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionUpdate),
				}},
				Check: env.expectHost(expectLimits(96<<20, 96<<20, 0, defaultPidsLimit)),
			},
		},
		CheckDestroy: env.checkGone,
	})
}

// Capabilities given by a variable (unknown while Terraform validates the
// configuration) are validated once known: the workspace is created with
// them and the next plan is empty; with egress, NET_RAW from the variable is
// refused on egress at plan.
func TestAccDockerIsolation_capsFromVariable(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	caps := func(v ...string) config.Variables {
		var vs []config.Variable
		for _, c := range v {
			vs = append(vs, config.StringVariable(c))
		}
		return config.Variables{"caps": config.SetVariable(vs...)}
	}
	decl := `
variable "caps" { type = set(string) }`
	cfg := env.configDocker(`cap_add = var.caps`, "", alive+decl)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: cfg, ConfigVariables: caps("NET_BIND_SERVICE"),
				Check: env.expectHost(func(hc *container.HostConfig) error {
					if !slices.Contains(hc.CapAdd, "CAP_NET_BIND_SERVICE") && !slices.Contains(hc.CapAdd, "NET_BIND_SERVICE") {
						return fmt.Errorf("docker inspect: CapAdd %v, want NET_BIND_SERVICE", hc.CapAdd)
					}
					return nil
				}),
			},
			{Config: cfg, ConfigVariables: caps("NET_BIND_SERVICE"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
			{
				Config:          env.configDocker(`cap_add = var.caps`, `egress = { default = "deny" }`, alive+decl),
				ConfigVariables: caps("NET_BIND_SERVICE", "net_raw"), PlanOnly: true,
				ExpectError: regexp.MustCompile(`Egress cannot be used with cap_add net_raw(.|\n)*AF_PACKET`),
			},
		},
		CheckDestroy: env.checkGone,
	})
}
