package provider

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestAccManifest_upgradeWithoutCommit: state written before entries had
// `commit` and the resource had git_urls and credentials_wo_version reads
// and plans with no change.
func TestAccManifest_upgradeWithoutCommit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(requiredSandbox+`
resource "sandbox_workspace" "ws" {
  local {}
}
resource "sandbox_manifest" "m" {
  workspace_id  = sandbox_workspace.ws.id
  manifest_json = jsonencode({ entries = { d = { type = "dir", children = { "f.txt" = { type = "file", content = "x" } } } } })
}
`), 0o644))
	c := newCLIRun(t, dir)
	c.run("apply.log", "apply", "-input=false", "-auto-approve", "-no-color")
	t.Cleanup(func() { c.run("destroy.log", "destroy", "-input=false", "-auto-approve", "-no-color") })
	statePath := filepath.Join(dir, "terraform.tfstate")
	b, err := os.ReadFile(statePath)
	must(t, err)
	var st map[string]any
	must(t, json.Unmarshal(b, &st))
	stripped := 0
	for _, r := range jsonArr(t, st["resources"]) {
		res := jsonObj(t, r)
		if res["type"] != "sandbox_manifest" {
			continue
		}
		attrs := jsonObj(t, jsonObj(t, jsonArr(t, res["instances"])[0])["attributes"])
		delete(attrs, "git_urls")
		delete(attrs, "credentials_wo_version")
		for _, e := range jsonObj(t, attrs["entries"]) {
			delete(jsonObj(t, e), "commit")
			stripped++
		}
	}
	if stripped != 2 {
		t.Fatalf("stripped commit from %d entries, want 2", stripped)
	}
	b, err = json.Marshal(st)
	must(t, err)
	must(t, os.WriteFile(statePath, b, 0o600))
	if code := c.exitCode("plan-upgraded.log", "plan", "-input=false", "-detailed-exitcode", "-no-color"); code != 0 {
		t.Fatalf("plan of the earlier state exited %d; want no changes:\n%s", code, c.last)
	}
}
