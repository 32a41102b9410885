package provider

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
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
	t.Parallel()
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

// TestAccDockerWorkspace_importSpelledEmpty: after an import, empty lists
// and maps, false and duplicated ports in the configuration, which the
// container records as nothing, do not replace the container.
func TestAccDockerWorkspace_importSpelledEmpty(t *testing.T) {
	t.Parallel()
	newDockerEnv(t)
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(requiredSandbox+fmt.Sprintf(`
resource "sandbox_workspace" "ws" {
  docker {
    image       = %q
    pull_policy = "never"
    fuse        = false
    labels      = {}
  }
  environment   = {}
  users         = []
  groups        = []
  exposed_ports = [9090, 8080, 9090]
}
`, dockertest.Image)), 0o644))
	c := newCLIRun(t, dir)
	c.run("apply.log", "apply", "-input=false", "-auto-approve", "-no-color")
	t.Cleanup(func() { c.run("destroy.log", "destroy", "-input=false", "-auto-approve", "-no-color") })
	st := readState(t, filepath.Join(dir, "terraform.tfstate"))
	id, cid := st.attr(t, "sandbox_workspace.ws", "id"), st.attr(t, "sandbox_workspace.ws", "container_id")
	c.run("rm.log", "state", "rm", "sandbox_workspace.ws")
	c.run("import.log", "import", "-input=false", "-no-color", "sandbox_workspace.ws", id)
	if code := c.exitCode("plan.log", "plan", "-input=false", "-detailed-exitcode", "-no-color"); code == 1 ||
		strings.Contains(c.last, "must be replaced") || strings.Contains(c.last, "to destroy") && !strings.Contains(c.last, "0 to destroy") {
		t.Fatalf("plan after import exited %d and replaces the container:\n%s", code, c.last)
	}
	c.run("apply2.log", "apply", "-input=false", "-auto-approve", "-no-color")
	if got := readState(t, filepath.Join(dir, "terraform.tfstate")).attr(t, "sandbox_workspace.ws", "container_id"); got != cid {
		t.Fatalf("container replaced after import: %s -> %s", cid, got)
	}
	planNoChanges(t, c, "after the import")
}
