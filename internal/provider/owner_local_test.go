package provider

import (
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/local"
)

// A local workspace of a provider not running as root refuses, at plan
// time and on the attribute, an owner other than the provider's own user,
// for entries and for the root.
func TestAccOwner_localRefusesOtherUsers(t *testing.T) {
	// Not parallel: ActAsUIDForTests changes what every local workspace of
	// the process sees, and a parallel test would see it change mid-apply.
	env := newTestEnv(t)
	defer local.ActAsUIDForTests(65534)()
	refused := regexp.MustCompile(`(?s)Owner not possible in a local workspace.*uid 65534.*needs the provider to run as root`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{Config: env.config("")},
			{
				// The workspace exists, so its id is known: the plan fails.
				PlanOnly: true,
				Config: env.config(`
resource "sandbox_file" "f" {
  workspace_id = sandbox_workspace.ws.id
  path         = "f.txt"
  content      = "x"
  owner        = "root"
}
`),
				ExpectError: regexp.MustCompile(`(?s)Owner not possible in a local workspace.*with sandbox_file.f,.*owner\s+= "root"`),
			},
			{
				Config: env.config(`
resource "sandbox_dir" "d" {
  workspace_id = sandbox_workspace.ws.id
  path         = "d"
  owner        = "0"
}
`),
				PlanOnly:    true,
				ExpectError: refused,
			},
			{
				Config: `
provider "sandbox" {
  local_base_dir = "` + env.base + `"
}
resource "sandbox_workspace" "other" {
  local {}
  root_owner = "root"
}
`,
				ExpectError: regexp.MustCompile(`(?s)Root owner not possible in a local workspace.*needs the provider to run as root`),
			},
		},
	})
}

// A local workspace of a provider not running as root chowns nothing by
// default (owner stays unset in state). The same entry planned by a
// provider running as root, as after an upgrade from a version without
// the default, keeps no owner and shows no change; a new entry takes the
// owner of the root (uid 65534 here) with its primary group.
func TestAccOwner_localDefaultsAndEntriesInState(t *testing.T) {
	// Not parallel: ActAsUIDForTests changes what every local workspace of
	// the process sees, and a parallel test would see it change mid-apply.
	env := newTestEnv(t)
	restore := local.ActAsUIDForTests(65534)
	defer func() { restore() }()
	old := `
resource "sandbox_file" "old" {
  workspace_id = sandbox_workspace.ws.id
  path         = "old.txt"
  content      = "x"
}
`
	next := old + `
resource "sandbox_file" "new" {
  workspace_id = sandbox_workspace.ws.id
  path         = "new.txt"
  content      = "y"
}
`
	var root string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: env.config(old),
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckNoResourceAttr("sandbox_file.old", "owner"),
					func(s *terraform.State) error {
						root = s.RootModule().Resources["sandbox_workspace.ws"].Primary.Attributes["root"]
						return expectHostIDs(root+"/old.txt", "0", "0")
					},
				),
			},
			{
				PreConfig: func() { restore(); restore = func() {} },
				Config:    env.config(old),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				Check: resource.TestCheckNoResourceAttr("sandbox_file.old", "owner"),
			},
			{
				Config: env.config(next),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_file.old", plancheck.ResourceActionNoop),
					plancheck.ExpectKnownValue("sandbox_file.new", tfjsonpath.New("owner"), knownvalue.NotNull()),
				}},
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckNoResourceAttr("sandbox_file.old", "owner"),
					func(*terraform.State) error {
						out, err := exec.Command("id", "-g", "65534").Output()
						if err != nil {
							return err
						}
						if err := expectHostIDs(root+"/old.txt", "0", "0"); err != nil {
							return err
						}
						return expectHostIDs(root+"/new.txt", "65534", strings.TrimSpace(string(out)))
					},
				),
			},
		},
	})
}

// expectHostIDs checks the uid and gid of a file on this machine.
func expectHostIDs(p, uid, gid string) error {
	out, err := exec.Command("stat", "-c", "%u:%g", p).Output()
	if err != nil {
		return fmt.Errorf("stat %s: %w", p, err)
	}
	if got := strings.TrimSpace(string(out)); got != uid+":"+gid {
		return fmt.Errorf("%s is %s, want %s:%s", p, got, uid, gid)
	}
	return nil
}
