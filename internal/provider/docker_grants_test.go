package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// grantsOf is an extra_path_grants attribute of the given elements.
func grantsOf(elems ...string) string {
	s := "extra_path_grants = ["
	for _, e := range elems {
		s += "\n    { " + e + " },"
	}
	return s + "\n  ]"
}

// Host-path grants are bind mounts: a read-only one is readable and not
// writable inside the container, a writable one takes a write that the
// host sees. The plan after apply is empty, an import reads the grants
// back (descriptions included), and a new description changes nothing in
// the container.
func TestAccDockerGrants_bindMounts(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	ref, out := filepath.Join(t.TempDir(), "ref"), filepath.Join(t.TempDir(), "out")
	must(t, os.MkdirAll(ref, 0o755))
	must(t, os.MkdirAll(out, 0o777))
	must(t, os.WriteFile(filepath.Join(ref, "facts.txt"), []byte("reference data\n"), 0o644))
	grants := func(desc string) string {
		return grantsOf(
			fmt.Sprintf("path = \"/data/ref/\", host_path = %q, read_only = true, description = %q", ref, desc),
			fmt.Sprintf("path = \"/data/out\", host_path = %q", out),
			`path = "/opt/tools"`,
		)
	}
	body := `
resource "sandbox_command" "use" {
  workspace_id             = sandbox_workspace.ws.id
  shell                    = "cat /data/ref/facts.txt; echo x > /data/ref/new 2>/dev/null; echo write_ref=$?; echo result > /data/out/result.txt; echo write_out=$?"
  allow_non_zero_exit_code = true
}
`
	var first string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: env.configDocker("", grants("reference"), body),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("sandbox_workspace.ws", tfjsonpath.New("extra_path_grants").AtSliceIndex(1).AtMapKey("read_only"),
						knownvalue.Bool(false)),
				},
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("sandbox_command.use", "stdout", "reference data\nwrite_ref=1\nwrite_out=0\n"),
					env.expectSh("ls /data/ref; grep ' /data/ref ' /proc/mounts | grep -c ' ro,'", "facts.txt\n1"),
					func(s *terraform.State) error {
						first = env.container(s)
						b, err := os.ReadFile(filepath.Join(out, "result.txt"))
						if err != nil || string(b) != "result\n" {
							return fmt.Errorf("the host reads %q (%w) from the writable grant's file", b, err)
						}
						return nil
					},
				),
			},
			{ResourceName: "sandbox_workspace.ws", ImportState: true, ImportStateVerify: true,
				// The configuration's "/data/ref/" is read back in normal form.
				ImportStateVerifyIgnore: []string{"keep_on_destroy", "docker.pull_policy", "extra_path_grants.0.path"}},
			{
				Config: env.configDocker("", grants("reference, v2"), body),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionUpdate),
				}},
				Check: env.sameContainer(&first),
			},
			{
				// Another host path replaces the container.
				Config: env.configDocker("", grantsOf(fmt.Sprintf("path = \"/data/ref\", host_path = %q, read_only = true", out)), ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionReplace),
				}},
				Check: env.expectSh("cat /data/ref/result.txt", "result"),
			},
		},
		CheckDestroy: env.checkGone,
	})
}

// The Python SDK's grant checks fail the plan on the grant at fault: a
// duplicate target, a host_path target inside, equal to or containing the
// root, or equal to a volume's target; a local workspace refuses host_path.
// A host_path that does not exist fails the apply, naming it.
func TestAccDockerGrants_refusals(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	host := t.TempDir()
	plan := func(docker, ws string, want ...string) resource.TestStep {
		return resource.TestStep{Config: env.configDocker(docker, ws, ""), PlanOnly: true, ExpectError: seqRe(want...)}
	}
	hp := fmt.Sprintf("host_path = %q", host)
	missing := filepath.Join(host, "absent")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			plan("", grantsOf(`path = "/mnt/shared-data", `+hp, `path = "/mnt/shared-data"`),
				"Unusable extra path grant", "extra_path_grants[1].path: duplicate Docker sandbox path grant target: /mnt/shared-data"),
			plan("", grantsOf(`path = "/workspace/shared", `+hp),
				"Unusable extra path grant", "extra_path_grants[0].path:", "must be outside the workspace root: /workspace/shared (the root is /workspace)"),
			plan("", grantsOf(`path = "/workspace", `+hp),
				"Unusable extra path grant", "extra_path_grants[0].path:", "must be outside the workspace root: /workspace (the root is /workspace)"),
			plan("", "root = \"/srv/ws/root\"\n  "+grantsOf(`path = "/srv", `+hp),
				"Unusable extra path grant", "extra_path_grants[0].path:", "must be outside the workspace root: /srv (the root is /srv/ws/root)"),
			plan(`volumes = [{ volume_name = "shared", path = "/mnt/shared-data" }]`, grantsOf(`path = "/mnt/shared-data", `+hp),
				"Unusable extra path grant", "extra_path_grants[0].path:", "conflicts with a mount: /mnt/shared-data is the target of volume shared"),
			plan("", grantsOf(`path = "relative", `+hp), "Invalid extra path grant", "extra_path_grants[0].path: sandbox path grant path must be POSIX absolute"),
			plan("", grantsOf(`path = "/mnt/x", host_path = "/srv/../etc"`),
				"Invalid extra path grant", "extra_path_grants[0].host_path: sandbox path grant host_path must not contain parent segments"),
			{
				Config: env.testEnv.config("") + "\nresource \"sandbox_workspace\" \"local\" {\n  local {}\n  " +
					grantsOf(`path = "/mnt/shared-data", `+hp) + "\n}\n",
				PlanOnly:    true,
				ExpectError: seqRe("Unusable extra path grant", "extra_path_grants[0].host_path: a local workspace does not support host_path for '/mnt/shared-data'"),
			},
			{
				Config:      env.configDocker("", grantsOf(fmt.Sprintf("path = \"/mnt/x\", host_path = %q", missing)), ""),
				ExpectError: seqRe("Host path not found", "extra_path_grants[0].host_path: host_path "+missing+" does not exist on the Docker daemon's host"),
			},
		},
	})
}

// seqRe matches the texts in this order in Terraform's error output, which
// wraps long lines.
func seqRe(texts ...string) *regexp.Regexp {
	parts := make([]string, 0, len(texts))
	for _, t := range texts {
		parts = append(parts, errRe(t).String())
	}
	return regexp.MustCompile("(?s)" + strings.Join(parts, ".*"))
}
