package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// defaultOwnerEntries: a file, a directory and a copy of src/tree with no
// owner, a file opting out with owner = "root", a directory owned by agent
// with no group, and extra (more entries, or none).
func defaultOwnerEntries(src, optout, extra string) string {
	return `
resource "sandbox_file" "dflt" {
  workspace_id = sandbox_workspace.ws.id
  path         = "dflt.txt"
  content      = "x"
}

resource "sandbox_dir" "dflt" {
  workspace_id = sandbox_workspace.ws.id
  path         = "dflt-dir"
}

resource "sandbox_file" "optout" {
  workspace_id = sandbox_workspace.ws.id
  path         = "optout.txt"
` + optout + `
}

resource "sandbox_local_dir" "dflt" {
  workspace_id = sandbox_workspace.ws.id
  path         = "copy"
  source       = "` + src + `/tree"
}

resource "sandbox_dir" "mine" {
  workspace_id = sandbox_workspace.ws.id
  path         = "mine"
  owner        = "agent"
}
` + extra
}

// expectIDs checks, inside the container, that each path (relative to the
// workspace root) has the uid:gid that `id` gives for who ("root" or
// "agent"), and that agent's group is not root's (so a group left alone
// would show).
func (e *dockerEnv) expectIDs(want map[string]string) func(*terraform.State) error {
	return func(s *terraform.State) error {
		c := e.container(s)
		out, err := sh(c, "id -u agent; id -g agent; id -u root; id -g root")
		if err != nil {
			return err
		}
		ids := strings.Fields(out)
		if len(ids) != 4 || ids[1] == ids[3] {
			return fmt.Errorf("id in the container gave %q", out)
		}
		of := map[string]string{"agent": ids[0] + ":" + ids[1], "root": ids[2] + ":" + ids[3]}
		for p, who := range want {
			got, err := sh(c, "stat -c '%u:%g' /workspace/"+p)
			if err != nil {
				return err
			}
			if got = strings.TrimSpace(got); got != of[who] {
				return fmt.Errorf("%s is %s, want %s's %s", p, got, who, of[who])
			}
		}
		return nil
	}
}

// Entries with no owner take the workspace's root_owner (agent, the first
// of its users) with agent's primary group; owner = "root" opts out; an
// owner with no group gives its primary group; the plan shows the default
// (unknown while the workspace is new); drift of a defaulted owner is
// given back; an entry already in state whose owner is removed from the
// configuration keeps the owner it has; import reads the owner back.
func TestAccDockerOwner_entryDefaults(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	env.writeSource("tree/sub/f.txt", "f\n", 0o644)
	users := `users = [{ name = "agent" }]`
	later := `
resource "sandbox_file" "later" {
  workspace_id = sandbox_workspace.ws.id
  path         = "later.txt"
  content      = "y"
}
`
	rootOpt := "  content = \"o\"\n  owner   = \"root\""
	var container string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{
				Config: env.config(users, defaultOwnerEntries(env.src, rootOpt, "")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectUnknownValue("sandbox_file.dflt", tfjsonpath.New("owner")),
					plancheck.ExpectUnknownValue("sandbox_dir.dflt", tfjsonpath.New("owner")),
				}},
				Check: resource.ComposeTestCheckFunc(
					func(s *terraform.State) error { container = env.container(s); return nil },
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "root_owner", "agent"),
					resource.TestCheckResourceAttr("sandbox_file.dflt", "owner", "agent"),
					resource.TestCheckResourceAttr("sandbox_dir.dflt", "owner", "agent"),
					resource.TestCheckResourceAttr("sandbox_local_dir.dflt", "owner", "agent"),
					resource.TestCheckNoResourceAttr("sandbox_dir.mine", "group"),
					env.expectIDs(map[string]string{
						".": "agent", "dflt.txt": "agent", "dflt-dir": "agent", "optout.txt": "root", "mine": "agent",
						"copy": "agent", "copy/sub": "agent", "copy/sub/f.txt": "agent",
					}),
				),
			},
			{
				// The workspace exists: the plan shows the owner a new
				// entry takes, and changes nothing else.
				Config: env.config(users, defaultOwnerEntries(env.src, rootOpt, later)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("sandbox_file.later", tfjsonpath.New("owner"), knownvalue.StringExact("agent")),
					plancheck.ExpectResourceAction("sandbox_file.dflt", plancheck.ResourceActionNoop),
					plancheck.ExpectResourceAction("sandbox_file.optout", plancheck.ResourceActionNoop),
				}},
				Check: env.expectIDs(map[string]string{"later.txt": "agent", "dflt.txt": "agent"}),
			},
			{
				// A defaulted owner changed inside the container is given
				// back, with agent's group.
				PreConfig: func() {
					_, err := sh(container, "chown 0:0 /workspace/dflt.txt")
					must(t, err)
				},
				Config: env.config(users, defaultOwnerEntries(env.src, rootOpt, later)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectChange("sandbox_file.dflt", "owner", "root", "agent"),
				}},
				Check: env.expectIDs(map[string]string{"dflt.txt": "agent"}),
			},
			{
				// owner removed from an entry in state, its content
				// changed: it keeps root, planned as such, and is not
				// chowned to the default.
				Config: env.config(users, defaultOwnerEntries(env.src, "  content = \"o2\"", later)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_file.optout", plancheck.ResourceActionUpdate),
					expectChange("sandbox_file.optout", "owner", "root", "root"),
				}},
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("sandbox_file.optout", "owner", "root"),
					env.expectIDs(map[string]string{"optout.txt": "root"}),
				),
			},
			{
				ResourceName:      "sandbox_file.dflt",
				ImportState:       true,
				ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"content", "permissions", "manifest_entry", "size", "content_md5", "content_sha1",
					"content_sha256", "content_base64sha256", "content_sha512", "content_base64sha512"},
			},
		},
	})
}
