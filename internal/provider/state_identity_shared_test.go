package provider

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
)

// TestAccStateIdentity_secondModule: a second root module reaches the
// first one's workspaces through data "sandbox_workspace" (by id, by root,
// by container labels), adds files and runs a command; destroying it
// leaves the first module's workspaces and files in place.
func TestAccStateIdentity_secondModule(t *testing.T) {
	t.Parallel()
	dockertest.Require(t)
	run := fmt.Sprintf("r%d", os.Getpid())
	m1 := t.TempDir()
	root := filepath.Join(t.TempDir(), "shared-ws")
	must(t, os.WriteFile(filepath.Join(m1, "main.tf"), []byte(requiredSandbox+fmt.Sprintf(`
resource "sandbox_workspace" "local" {
  root = %q
  local {}
}
resource "sandbox_file" "owned" {
  workspace_id = sandbox_workspace.local.id
  path         = "owned.txt"
  content      = "module 1\n"
}
resource "sandbox_workspace" "docker" {
  docker {
    image       = %q
    pull_policy = "never"
    labels      = { team = "evals", run = %q }
  }
  exposed_ports = [8080]
}
resource "sandbox_file" "owned_docker" {
  workspace_id = sandbox_workspace.docker.id
  path         = "owned.txt"
  content      = "module 1\n"
}
output "local_id" { value = sandbox_workspace.local.id }
`, root, dockertest.Image, run)), 0o644))
	c1 := newCLIRun(t, m1)
	c1.run("apply.log", "apply", "-input=false", "-auto-approve", "-no-color")
	t.Cleanup(func() { c1.run("destroy.log", "destroy", "-input=false", "-auto-approve", "-no-color") })
	st1 := readState(t, filepath.Join(m1, "terraform.tfstate"))
	localID := st1.attr(t, "sandbox_workspace.local", "id")
	cid := st1.attr(t, "sandbox_workspace.docker", "container_id")

	m2 := t.TempDir()
	must(t, os.WriteFile(filepath.Join(m2, "main.tf"), []byte(requiredSandbox+fmt.Sprintf(`
data "sandbox_workspace" "by_id" {
  id = %q
}
data "sandbox_workspace" "by_root" {
  root = %q
}
data "sandbox_workspace" "by_labels" {
  labels = { run = %q }
}
resource "sandbox_file" "added" {
  workspace_id = data.sandbox_workspace.by_id.id
  path         = "added.txt"
  content      = "module 2\n"
}
resource "sandbox_file" "added_docker" {
  workspace_id = data.sandbox_workspace.by_labels.id
  path         = "added.txt"
  content      = "module 2\n"
}
resource "sandbox_command" "probe" {
  workspace_id = data.sandbox_workspace.by_labels.id
  shell        = "cat owned.txt > seen.txt"
}
output "same" { value = data.sandbox_workspace.by_root.id == data.sandbox_workspace.by_id.id }
output "docker_root" { value = data.sandbox_workspace.by_labels.root }
output "docker_port" { value = data.sandbox_workspace.by_labels.endpoints[0].port }
output "docker_kind" { value = data.sandbox_workspace.by_labels.kind }
`, localID, root, run)), 0o644))
	c2 := newCLIRun(t, m2)
	c2.run("apply.log", "apply", "-input=false", "-auto-approve", "-no-color")
	out := c2.run("output.log", "output", "-json")
	for _, want := range []string{`"same":{"sensitive":false,"type":"bool","value":true}`, `"docker_root":{"sensitive":false,"type":"string","value":"/workspace"}`,
		`"docker_port":{"sensitive":false,"type":"number","value":8080}`, `"docker_kind":{"sensitive":false,"type":"string","value":"docker"}`} {
		if !strings.Contains(strings.ReplaceAll(strings.ReplaceAll(out, "\n", ""), " ", ""), want) {
			t.Errorf("outputs lack %s:\n%s", want, out)
		}
	}
	if err := expectFile(filepath.Join(root, "added.txt"), "module 2\n", 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := sh(cid, "cat /workspace/added.txt /workspace/seen.txt"); err != nil || got != "module 2\nmodule 1" {
		t.Fatalf("in the container: %q, %v", got, err)
	}
	planNoChanges(t, c2, "module 2")
	planNoChanges(t, c1, "module 1 after module 2")

	c2.run("destroy.log", "destroy", "-input=false", "-auto-approve", "-no-color")
	if _, err := os.Stat(filepath.Join(root, "added.txt")); !os.IsNotExist(err) {
		t.Fatalf("module 2's file survived its destroy: %v", err)
	}
	if err := expectFile(filepath.Join(root, "owned.txt"), "module 1\n", 0o755); err != nil {
		t.Fatalf("module 2's destroy touched module 1's workspace: %v", err)
	}
	if got, err := sh(cid, "cat /workspace/owned.txt; test ! -e /workspace/added.txt || echo added-left"); err != nil || got != "module 1" {
		t.Fatalf("module 1's container after module 2's destroy: %q, %v", got, err)
	}
	planNoChanges(t, c1, "module 1 after module 2's destroy")
}

// TestAccDockerWorkspace_stoppedContainer: a stopped container is shown by
// the plan, which starts nothing; the apply starts it, the restart marker
// changes, a command keyed on it runs again, and endpoints carry the new
// host port.
func TestAccDockerWorkspace_stoppedContainer(t *testing.T) {
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
  shell        = "date +%s%N >> boots.txt"
  triggers     = { boot = sandbox_workspace.ws.started_at }
}
`)
	var cid, started string
	running := func() string {
		out, err := exec.Command("docker", "inspect", "-f", "{{.State.Running}}", cid).Output()
		must(t, err)
		return strings.TrimSpace(string(out))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: resource.ComposeTestCheckFunc(
					func(s *terraform.State) error {
						cid = env.container(s)
						started = s.RootModule().Resources["sandbox_workspace.ws"].Primary.Attributes["started_at"]
						if started == "" {
							return fmt.Errorf("started_at is empty")
						}
						return nil
					},
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "running", "true"),
					env.expectSh("wc -l < /workspace/boots.txt", "1"),
				),
			},
			{
				PreConfig: func() {
					if out, err := exec.Command("docker", "stop", "-t", "1", cid).CombinedOutput(); err != nil {
						t.Fatalf("docker stop: %v\n%s", err, out)
					}
				},
				Config:             cfg,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				PreConfig: func() {
					if r := running(); r != "false" {
						t.Fatalf("after terraform plan the container is running=%s: the plan started it", r)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("sandbox_file.f", plancheck.ResourceActionNoop),
					plancheck.ExpectResourceAction("sandbox_command.boot", plancheck.ResourceActionReplace),
					plancheck.ExpectUnknownValue("sandbox_workspace.ws", tfjsonpath.New("started_at")),
				}},
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "running", "true"),
					func(s *terraform.State) error {
						a := s.RootModule().Resources["sandbox_workspace.ws"].Primary.Attributes
						if a["started_at"] == started {
							return fmt.Errorf("started_at did not change on restart: %s", started)
						}
						if r := running(); r != "true" {
							return fmt.Errorf("container running=%s after apply", r)
						}
						out, err := exec.Command("docker", "port", cid, "8080/tcp").Output()
						if err != nil {
							return err
						}
						hp := strings.TrimSpace(string(out))
						hp = hp[strings.LastIndex(hp, ":")+1:]
						if a["endpoints.0.host_port"] != hp {
							return fmt.Errorf("endpoints.0.host_port = %s, the daemon publishes 8080 on %s", a["endpoints.0.host_port"], hp)
						}
						return nil
					},
					env.expectSh("wc -l < /workspace/boots.txt; cat /workspace/f.txt", "2\nkept"),
				),
			},
			{Config: cfg, PlanOnly: true},
		},
	})
}

// TestAccStateIdentity_otherDaemon: a docker workspace missing from the
// configured daemon is re-created when it was created there, and refused
// with both daemon ids when state says it lives on another daemon.
func TestAccStateIdentity_otherDaemon(t *testing.T) {
	t.Parallel()
	dockertest.Require(t)
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(requiredSandbox+fmt.Sprintf(`
resource "sandbox_workspace" "ws" {
  docker {
    image       = %q
    pull_policy = "never"
  }
}
`, dockertest.Image)), 0o644))
	c := newCLIRun(t, dir)
	c.run("apply.log", "apply", "-input=false", "-auto-approve", "-no-color")
	t.Cleanup(func() { c.run("destroy.log", "destroy", "-input=false", "-auto-approve", "-no-color") })
	statePath := filepath.Join(dir, "terraform.tfstate")
	cid := readState(t, statePath).attr(t, "sandbox_workspace.ws", "container_id")
	if out, err := exec.Command("docker", "rm", "-f", cid).CombinedOutput(); err != nil {
		t.Fatalf("docker rm: %v\n%s", err, out)
	}
	saved, err := os.ReadFile(statePath)
	must(t, err)
	rewritePrivate(t, statePath, "docker_daemon", `{"id":"0000:OTHER:DAEMON"}`)
	if code := c.exitCode("plan-other.log", "plan", "-input=false", "-detailed-exitcode", "-no-color"); code != 1 ||
		!strings.Contains(c.last, "Workspace is on another Docker daemon") || !strings.Contains(c.last, "0000:OTHER:DAEMON") {
		t.Fatalf("plan with the workspace on another daemon exited %d:\n%s", code, c.last)
	}
	must(t, os.WriteFile(statePath, saved, 0o600))
	if code := c.exitCode("plan-gone.log", "plan", "-input=false", "-detailed-exitcode", "-no-color"); code != 2 ||
		!strings.Contains(c.last, "1 to add") {
		t.Fatalf("plan with the container removed exited %d, want a re-creation:\n%s", code, c.last)
	}
}

// privateKeys decodes the private state of the only resource instance in
// the state file at p: the decoded state, that instance and its keys.
func privateKeys(t *testing.T, p string) (map[string]any, map[string]any, map[string][]byte) {
	t.Helper()
	b, err := os.ReadFile(p)
	must(t, err)
	var st map[string]any
	must(t, json.Unmarshal(b, &st))
	inst := jsonObj(t, jsonArr(t, jsonObj(t, jsonArr(t, st["resources"])[0])["instances"])[0])
	priv, err := base64.StdEncoding.DecodeString(jsonStr(t, inst["private"]))
	must(t, err)
	keys := map[string][]byte{}
	must(t, json.Unmarshal(priv, &keys))
	return st, inst, keys
}

// statePrivate is private-state key of the only resource instance in the
// state file at p ("" when missing).
func statePrivate(t *testing.T, p, key string) string {
	t.Helper()
	_, _, keys := privateKeys(t, p)
	return string(keys[key])
}

// rewritePrivate sets private-state key of the only resource instance in
// the state file at p; the key must be there already.
func rewritePrivate(t *testing.T, p, key, value string) {
	t.Helper()
	st, inst, keys := privateKeys(t, p)
	if _, ok := keys[key]; !ok {
		t.Fatalf("no %s key in private state: %v", key, keys)
	}
	keys[key] = []byte(value)
	priv, err := json.Marshal(keys)
	must(t, err)
	inst["private"] = base64.StdEncoding.EncodeToString(priv)
	b, err := json.Marshal(st)
	must(t, err)
	must(t, os.WriteFile(p, b, 0o600))
}
