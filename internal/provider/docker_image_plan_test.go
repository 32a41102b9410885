package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// A missing image with pull_policy = "never" fails the plan on docker.image
// (it used to fail only at apply); nothing is created.
func TestAccDockerImage_missingNeverFailsPlan(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	cfg := fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}

resource "sandbox_workspace" "ws" {
  docker {
    image       = "sandbox-test/never-built:latest"
    pull_policy = "never"
  }
}
`, env.base)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config:      cfg,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Image not on the Docker daemon.*image +=.*sandbox-test/never-built:latest is not present`),
		}},
	})
}
