package provider

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

func dockerCLI(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("docker", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestAccDockerWorkspace_pausedCopiedStopped: a paused container is
// unpaused without counting as a restart; a copy of the container made
// from a committed image is never taken for the workspace; a stopped
// container is started by an apply that writes into it, and destroyed.
func TestAccDockerWorkspace_pausedCopiedStopped(t *testing.T) {
	env := newDockerEnv(t)
	cfg := env.config(`exposed_ports = [8080]`, `
resource "sandbox_file" "f" {
  workspace_id = sandbox_workspace.ws.id
  path         = "f.txt"
  content      = "kept\n"
}
resource "sandbox_command" "boot" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "echo boot >> boots.txt"
  triggers     = { boot = sandbox_workspace.ws.started_at }
}
`)
	withSecond := cfg + `
resource "sandbox_file" "g" {
  workspace_id = sandbox_workspace.ws.id
  path         = "g.txt"
  content      = "added while stopped\n"
}
`
	var cid, started, image, copyID, second string
	t.Cleanup(func() {
		if copyID != "" {
			_ = exec.Command("docker", "rm", "-f", copyID).Run()
		}
		if image != "" {
			_ = exec.Command("docker", "rmi", "-f", image).Run()
		}
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: func(s *terraform.State) error {
					cid = env.container(s)
					started = s.RootModule().Resources["sandbox_workspace.ws"].Primary.Attributes["started_at"]
					return nil
				},
			},
			{
				// Paused: the plan unpauses it; nothing restarts.
				PreConfig: func() { dockerCLI(t, "pause", cid) },
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("sandbox_command.boot", plancheck.ResourceActionNoop),
				}},
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "running", "true"),
					func(s *terraform.State) error {
						if got := s.RootModule().Resources["sandbox_workspace.ws"].Primary.Attributes["started_at"]; got != started {
							return fmt.Errorf("started_at changed on unpause: %s -> %s", started, got)
						}
						if st := dockerCLI(t, "inspect", "-f", "{{.State.Status}}", cid); st != "running" {
							return fmt.Errorf("container is %s after apply", st)
						}
						return nil
					},
					env.expectSh("wc -l < /workspace/boots.txt", "1"),
				),
			},
			{
				// Stopped, and an entry added: the apply starts the container
				// to write it.
				PreConfig: func() { dockerCLI(t, "stop", "-t", "1", cid) },
				Config:    withSecond,
				Check:     env.expectSh("cat /workspace/g.txt /workspace/f.txt", "added while stopped\nkept"),
			},
			{
				// A copy run from a committed image inherits the workspace's
				// label; with the workspace's own container gone, the copy is
				// not adopted: the workspace is planned for re-creation.
				PreConfig: func() {
					image = "sandbox-test/copy-" + strings.ToLower(t.Name())
					dockerCLI(t, "commit", cid, image)
					copyID = dockerCLI(t, "run", "-d", "--entrypoint", "tail", image, "-f", "/dev/null")
					dockerCLI(t, "rm", "-f", cid)
				},
				Config: withSecond,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction("sandbox_file.f", plancheck.ResourceActionCreate),
				}},
				Check: func(s *terraform.State) error {
					if second = env.container(s); second == copyID {
						return fmt.Errorf("the copy %s was taken for the workspace", copyID)
					}
					return nil
				},
			},
			{
				// Stopped at destroy: the destroy still removes everything.
				PreConfig: func() { dockerCLI(t, "stop", "-t", "1", second) },
				Config:    withSecond,
				Destroy:   true,
			},
		},
	})
}
