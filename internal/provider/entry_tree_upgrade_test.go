package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAccEntryTree_upgradeTreeDigest: state written before the two
// copied-tree resources shared their attributes (sandbox_local_dir schema
// version 0 with `source_sha256`; neither with `total_bytes`) is upgraded:
// the plan is empty, and after a refresh the digest sits in `tree_sha256`
// with its old value and `total_bytes` holds the copied bytes.
func TestAccEntryTree_upgradeTreeDigest(t *testing.T) {
	f := newGitFixture(t)
	f.create("demo")
	f.commit("demo", map[string]string{"README.md": "hello\n", "src/x.go": "package x\n"})
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "src"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "src", "a.txt"), []byte("0123456789"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(requiredSandbox+fmt.Sprintf(`
provider "sandbox" {
  # The repository lives outside the working directory: a file:// URL is a
  # host source, confined like any other.
  extra_path_grants = [{ path = %q, read_only = true }]
}
resource "sandbox_workspace" "ws" {
  local {}
}
resource "sandbox_local_dir" "d" {
  workspace_id = sandbox_workspace.ws.id
  path         = "copy"
  source       = "src"
}
resource "sandbox_git_repo" "g" {
  workspace_id = sandbox_workspace.ws.id
  path         = "repo"
  repo         = "fixture/demo"
  url          = %q
  ref          = "main"
}
`, f.root, "file://"+filepath.Join(f.root, "demo.git"))), 0o644))
	c := newCLIRun(t, dir)
	c.run("apply.log", "apply", "-input=false", "-auto-approve", "-no-color")
	t.Cleanup(func() { c.run("destroy.log", "destroy", "-input=false", "-auto-approve", "-no-color") })
	statePath := filepath.Join(dir, "terraform.tfstate")
	before := readState(t, statePath)
	localDigest := before.attr(t, "sandbox_local_dir.d", "tree_sha256")
	gitDigest := before.attr(t, "sandbox_git_repo.g", "tree_sha256")
	if localDigest == "" || gitDigest == "" {
		t.Fatalf("no tree_sha256 in state: %q %q", localDigest, gitDigest)
	}

	// Write the state as the earlier schema had it.
	b, err := os.ReadFile(statePath)
	must(t, err)
	var st map[string]any
	must(t, json.Unmarshal(b, &st))
	for _, r := range jsonArr(t, st["resources"]) {
		res := jsonObj(t, r)
		inst := jsonObj(t, jsonArr(t, res["instances"])[0])
		attrs := jsonObj(t, inst["attributes"])
		switch res["type"] {
		case "sandbox_local_dir":
			inst["schema_version"] = 0
			attrs["source_sha256"] = attrs["tree_sha256"]
			delete(attrs, "tree_sha256")
			delete(attrs, "total_bytes")
		case "sandbox_git_repo":
			delete(attrs, "total_bytes")
		}
	}
	b, err = json.Marshal(st)
	must(t, err)
	must(t, os.WriteFile(statePath, b, 0o600))

	if code := c.exitCode("plan-upgraded.log", "plan", "-input=false", "-detailed-exitcode", "-no-color"); code != 0 {
		t.Fatalf("plan of the earlier state exited %d; want no changes:\n%s", code, c.last)
	}
	c.run("refresh.log", "apply", "-refresh-only", "-input=false", "-auto-approve", "-no-color")
	after := readState(t, statePath)
	if got := after.attr(t, "sandbox_local_dir.d", "tree_sha256"); got != localDigest {
		t.Errorf("sandbox_local_dir tree_sha256 = %q after the upgrade, want %q", got, localDigest)
	}
	if got := after.attr(t, "sandbox_git_repo.g", "tree_sha256"); got != gitDigest {
		t.Errorf("sandbox_git_repo tree_sha256 = %q after the upgrade, want %q", got, gitDigest)
	}
	for addr, want := range map[string]float64{"sandbox_local_dir.d": 10, "sandbox_git_repo.g": float64(len("hello\n") + len("package x\n"))} {
		for _, r := range after.Resources {
			if r.Type+"."+r.Name == addr && r.Instances[0].Attributes["total_bytes"] != want {
				t.Errorf("%s total_bytes = %v after refresh, want %v", addr, r.Instances[0].Attributes["total_bytes"], want)
			}
		}
	}
	if strings.Contains(c.last, "source_sha256") {
		t.Errorf("the refresh still speaks of source_sha256:\n%s", c.last)
	}
}
