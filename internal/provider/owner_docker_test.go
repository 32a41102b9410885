package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// ownerEntries gives every entry kind to the user agent in a workspace
// whose users are agent (so its root is agent's by default).
func ownerEntries(src, gitURL string) string {
	return fmt.Sprintf(`
resource "sandbox_dir" "owned" {
  workspace_id = sandbox_workspace.ws.id
  path         = "owned"
  owner        = "agent"
}

resource "sandbox_file" "note" {
  workspace_id = sandbox_workspace.ws.id
  path         = "owned/note.txt"
  content      = "mine\n"
  permissions  = "0640"
  owner        = "agent"
  group        = "team"
  depends_on   = [sandbox_dir.owned]
}

resource "sandbox_local_dir" "skills" {
  workspace_id = sandbox_workspace.ws.id
  path         = "skills"
  source       = %q
  owner        = "agent"
  group        = "team"
}
%s
# agent writes in the root, in its copies and in its checkout; what it
# writes is removed again so the copies stay as declared.
resource "sandbox_command" "writes" {
  workspace_id = sandbox_workspace.ws.id
  user         = "agent"
  shell        = "cd /workspace && touch at-root skills/tools/new repo/docs/new && rm at-root skills/tools/new repo/docs/new && id -un"
  depends_on   = [sandbox_local_dir.skills, sandbox_git_repo.r, sandbox_file.note]
}
`, src+"/skills", gitRepoBody(gitURL, "main", `owner = "agent"`))
}

const ownerStat = "cd /workspace && stat -c '%U %G %n' . owned owned/note.txt skills skills/a.md skills/tools skills/tools/run.sh " +
	"repo repo/README.md repo/docs repo/docs/ref/api.md"

// An owner without a group gives the owner's primary group too (agent's
// own, which adduser creates), the root's included.
const ownerStatWant = "agent agent .\nagent agent owned\nagent team owned/note.txt\nagent team skills\nagent team skills/a.md\n" +
	"agent team skills/tools\nagent team skills/tools/run.sh\nagent agent repo\nagent agent repo/README.md\nagent agent repo/docs\n" +
	"agent agent repo/docs/ref/api.md"

// Entries owned by agent inside a container: every file and directory of
// the copies, the root by default; agent writes there; owner drift made
// with chown inside the container shows in the plan and is repaired.
func TestAccDockerOwner_entriesTreesAndRoot(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	env.writeSource("skills/a.md", "alpha\n", 0o644)
	env.writeSource("skills/tools/run.sh", "#!/bin/sh\necho run\n", 0o755)
	f := newGitFixture(t)
	demoRepo(f)
	cfg := env.config(`
  users  = [{ name = "agent" }]
  groups = [{ name = "team", users = [{ name = "agent" }] }]
`, ownerEntries(env.src, f.daemon()+"fixture/demo.git"))
	var container string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: resource.ComposeTestCheckFunc(
					func(s *terraform.State) error { container = env.container(s); return nil },
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "root_owner", "agent"),
					resource.TestCheckResourceAttr("sandbox_command.writes", "stdout", "agent\n"),
					resource.TestCheckResourceAttr("sandbox_command.writes", "exit_code", "0"),
					env.expectSh(ownerStat, ownerStatWant),
				),
			},
			{
				// Owners changed out of band: the top of an entry, a file
				// deep in each copy, and the root. Refresh shows each.
				PreConfig: func() {
					_, err := sh(container, "cd /workspace && chown root owned/note.txt skills/tools/run.sh repo/docs/ref/api.md . && chown 0:0 owned")
					must(t, err)
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectChange("sandbox_workspace.ws", "root_owner", "root", "agent"),
					expectChange("sandbox_dir.owned", "owner", "root", "agent"),
					expectChange("sandbox_file.note", "owner", "root", "agent"),
					expectChange("sandbox_local_dir.skills", "owner", "0", "agent"),
					expectChange("sandbox_git_repo.r", "owner", "0", "agent"),
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("sandbox_local_dir.skills", plancheck.ResourceActionUpdate),
				}},
				Check: env.expectSh(ownerStat, ownerStatWant),
			},
			{
				// The root deleted inside the container: re-created, given
				// back to agent, and its entries written again.
				PreConfig: func() {
					_, err := sh(container, "rm -rf /workspace")
					must(t, err)
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectChange("sandbox_workspace.ws", "root_owner", "", "agent"),
					plancheck.ExpectResourceAction("sandbox_local_dir.skills", plancheck.ResourceActionCreate),
				}},
				Check: env.expectSh(ownerStat, ownerStatWant),
			},
			{
				// Numeric ids name the same users: no change.
				Config: env.config(`
  users  = [{ name = "agent" }]
  groups = [{ name = "team", users = [{ name = "agent" }] }]
  root_owner = "0"
`, ""),
				Check: env.expectSh("stat -c '%u %U' /workspace", "0 root"),
			},
		},
	})
}

// expectChange checks that the plan changes attr of addr from before to
// after (the value refresh read back, and the configured one).
func expectChange(addr, attr, before, after string) plancheck.PlanCheck {
	return changeCheck{addr, attr, before, after}
}

type changeCheck struct{ addr, attr, before, after string }

func (c changeCheck) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != c.addr || rc.Change == nil {
			continue
		}
		b, _ := rc.Change.Before.(map[string]any)
		a, _ := rc.Change.After.(map[string]any)
		if b[c.attr] != c.before || a[c.attr] != c.after {
			resp.Error = fmt.Errorf("%s.%s: planned %v -> %v, want %q -> %q", c.addr, c.attr, b[c.attr], a[c.attr], c.before, c.after)
		}
		return
	}
	resp.Error = fmt.Errorf("%s is not in the plan", c.addr)
}
