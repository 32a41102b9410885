package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/local"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// TestAccStateIdentity_upgradeFromBareUUIDs: state written when workspace
// ids were bare UUIDs (schema version 0, a record per workspace under
// <local_base_dir>/.workspaces, no marker on the root) is upgraded: the
// plan replaces nothing, only moves entries' workspace_id in place, and
// after the apply the next plan is empty.
func TestAccStateIdentity_upgradeFromBareUUIDs(t *testing.T) {
	t.Parallel()
	dockertest.Require(t)
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(requiredSandbox+fmt.Sprintf(`
resource "sandbox_workspace" "local" {
  local {}
  environment = { GREETING = "hi" }
}
resource "sandbox_file" "local" {
  workspace_id = sandbox_workspace.local.id
  path         = "a.txt"
  content      = "a"
}
resource "sandbox_command" "local" {
  workspace_id = sandbox_workspace.local.id
  shell        = "echo \"$GREETING\" >> ran.txt"
}
resource "sandbox_workspace" "docker" {
  docker {
    image       = %q
    pull_policy = "never"
  }
}
resource "sandbox_file" "docker" {
  workspace_id = sandbox_workspace.docker.id
  path         = "b.txt"
  content      = "b"
}
`, dockertest.Image)), 0o644))
	c := newCLIRun(t, dir)
	c.run("apply.log", "apply", "-input=false", "-auto-approve", "-no-color")
	t.Cleanup(func() { c.run("destroy.log", "destroy", "-input=false", "-auto-approve", "-no-color") })
	statePath := filepath.Join(dir, "terraform.tfstate")
	root := downgradeState(t, statePath, filepath.Join(dir, ".sandbox"))

	code := c.exitCode("plan-upgrade.log", "plan", "-input=false", "-detailed-exitcode", "-no-color")
	if code != 2 || !strings.Contains(c.last, "0 to add, 3 to change, 0 to destroy") {
		t.Fatalf("plan of upgraded state exited %d; want only the entries' workspace_id changed in place:\n%s", code, c.last)
	}
	c.run("apply-upgrade.log", "apply", "-input=false", "-auto-approve", "-no-color")
	planNoChanges(t, c, "after the upgrade")
	if b, err := os.ReadFile(filepath.Join(root, "ran.txt")); err != nil || string(b) != "hi\n" {
		t.Fatalf("the command ran again or lost its workspace: ran.txt = %q, %v", b, err)
	}
}

// downgradeState rewrites a state file into the form of schema version 0:
// bare-UUID ids, a registry record for the local workspace, no marker on
// its root. It returns the local root.
func downgradeState(t *testing.T, p, base string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	must(t, err)
	var st map[string]any
	must(t, json.Unmarshal(b, &st))
	bare := map[string]string{}
	var localRoot string
	for _, r := range jsonArr(t, st["resources"]) {
		res := jsonObj(t, r)
		inst := jsonObj(t, jsonArr(t, res["instances"])[0])
		attrs := jsonObj(t, inst["attributes"])
		if res["type"] != "sandbox_workspace" {
			continue
		}
		id := jsonStr(t, attrs["id"])
		ref, err := workspace.ParseID(id)
		must(t, err)
		bare[id] = ref.UUID
		attrs["id"] = ref.UUID
		delete(attrs, "running")
		delete(attrs, "started_at")
		if d, ok := attrs["docker"].(map[string]any); ok {
			delete(d, "restart_policy")
		}
		inst["schema_version"] = 0
		if ref.Kind == "local" {
			localRoot = ref.Root
			rec, _ := json.Marshal(map[string]any{"id": ref.UUID, "kind": "local", "root": ref.Root, "environment": map[string]string{"GREETING": "hi"}})
			must(t, os.MkdirAll(filepath.Join(base, ".workspaces"), 0o700))
			must(t, os.WriteFile(filepath.Join(base, ".workspaces", ref.UUID+".json"), rec, 0o600))
			must(t, unix.Removexattr(ref.Root, local.MarkerAttr))
		}
	}
	for _, r := range jsonArr(t, st["resources"]) {
		attrs := jsonObj(t, jsonObj(t, jsonArr(t, jsonObj(t, r)["instances"])[0])["attributes"])
		if ws, ok := attrs["workspace_id"].(string); ok && bare[ws] != "" {
			attrs["workspace_id"] = bare[ws]
			if id, ok := attrs["id"].(string); ok && strings.HasPrefix(id, ws+"/") {
				attrs["id"] = bare[ws] + strings.TrimPrefix(id, ws)
			}
		}
	}
	b, err = json.Marshal(st)
	must(t, err)
	must(t, os.WriteFile(p, b, 0o600))
	if localRoot == "" {
		t.Fatal("no local workspace in state")
	}
	return localRoot
}
