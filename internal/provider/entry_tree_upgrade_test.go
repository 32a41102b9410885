package provider

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newTreeUpgradeDir makes a working directory with a source tree and a
// Git repository, and returns it with a function that writes its
// configuration: a local workspace with a sandbox_local_dir and a
// sandbox_git_repo, both given extra.
func newTreeUpgradeDir(t *testing.T) (string, func(extra string)) {
	f := newGitFixture(t)
	f.create("demo")
	f.commit("demo", map[string]string{"README.md": "hello\n", "src/x.go": "package x\n"})
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "src"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "src", "a.txt"), []byte("0123456789"), 0o644))
	return dir, func(extra string) {
		must(t, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(copyDirConfig(fmt.Sprintf(`
provider "sandbox" {
  # The repository lives outside the working directory: a file:// URL is a
  # host source, confined like any other.
  extra_path_grants = [{ path = %q, read_only = true }]
}
resource "sandbox_git_repo" "g" {
  workspace_id = sandbox_workspace.ws.id
  path         = "repo"
  repo         = "fixture/demo"
  url          = %q
  ref          = "main"
  %s
}
`, f.root, "file://"+filepath.Join(f.root, "demo.git"), extra), extra)), 0o644))
	}
}

// applyTreeUpgrade applies the configuration of newTreeUpgradeDir with
// extra (destroyed when the test ends), then rewrites the instances of the
// state file through earlier(type, instance, attributes) to how an earlier
// schema held them. It returns the run, the state path and the config
// writer.
func applyTreeUpgrade(t *testing.T, extra string, earlier func(typ any, inst, attrs map[string]any)) (*cliRun, string, func(string)) {
	dir, config := newTreeUpgradeDir(t)
	config(extra)
	c := newCLIRun(t, dir)
	c.run("apply.log", "apply", "-input=false", "-auto-approve", "-no-color")
	t.Cleanup(func() { c.run("destroy.log", "destroy", "-input=false", "-auto-approve", "-no-color") })
	statePath := filepath.Join(dir, "terraform.tfstate")
	b, err := os.ReadFile(statePath)
	must(t, err)
	var st map[string]any
	must(t, json.Unmarshal(b, &st))
	for _, r := range jsonArr(t, st["resources"]) {
		res := jsonObj(t, r)
		inst := jsonObj(t, jsonArr(t, res["instances"])[0])
		earlier(res["type"], inst, jsonObj(t, inst["attributes"]))
	}
	b, err = json.Marshal(st)
	must(t, err)
	must(t, os.WriteFile(statePath, b, 0o600))
	return c, statePath, config
}

// TestAccEntryTree_upgradeTreeDigest: state written before the two
// copied-tree resources shared their attributes (sandbox_local_dir schema
// version 0 with `source_sha256`; neither with `total_bytes`) is upgraded:
// the plan is empty, and after a refresh the digest sits in `tree_sha256`
// with its old value and `total_bytes` holds the copied bytes.
func TestAccEntryTree_upgradeTreeDigest(t *testing.T) {
	t.Parallel()
	var localDigest, gitDigest string
	c, statePath, _ := applyTreeUpgrade(t, "", func(typ any, inst, attrs map[string]any) {
		switch typ {
		case "sandbox_local_dir":
			localDigest, _ = attrs["tree_sha256"].(string)
			inst["schema_version"] = 0
			attrs["source_sha256"] = attrs["tree_sha256"]
			delete(attrs, "tree_sha256")
			delete(attrs, "total_bytes")
		case "sandbox_git_repo":
			gitDigest, _ = attrs["tree_sha256"].(string)
			delete(attrs, "total_bytes")
		}
	})
	if localDigest == "" || gitDigest == "" {
		t.Fatalf("no tree_sha256 in state: %q %q", localDigest, gitDigest)
	}

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

// TestAccEntryTree_upgradeRecordedFiles: state written when `files` and
// `file_permissions` were always recorded (sandbox_local_dir schema version
// 1, sandbox_git_repo version 0, no observed tree in private state) is
// upgraded in place: the plan is empty with and without a refresh, the
// maps leave state, and drift in either copy afterwards is planned naming
// the file and repaired by the apply.
func TestAccEntryTree_upgradeRecordedFiles(t *testing.T) {
	t.Parallel()
	c, statePath, config := applyTreeUpgrade(t, "record_files = true", func(typ any, inst, attrs map[string]any) {
		if typ != "sandbox_local_dir" && typ != "sandbox_git_repo" {
			return
		}
		inst["schema_version"] = map[any]int{"sandbox_local_dir": 1, "sandbox_git_repo": 0}[typ]
		if len(jsonObj(t, attrs["files"])) == 0 {
			t.Fatalf("%s recorded no files with record_files = true", typ)
		}
		delete(attrs, "record_files")
		delete(attrs, "changes")
		inst["private"] = withoutPrivateKey(t, inst["private"], observedKey)
	})
	config("")

	for _, refresh := range []string{"-refresh=false", "-refresh=true"} {
		if code := c.exitCode("plan-upgraded.log", "plan", "-input=false", "-detailed-exitcode", "-no-color", refresh); code != 0 {
			t.Fatalf("plan %s of the earlier state exited %d; want no changes:\n%s", refresh, code, c.last)
		}
	}
	c.run("refresh.log", "apply", "-refresh-only", "-input=false", "-auto-approve", "-no-color")
	after := readState(t, statePath)
	for _, addr := range []string{"sandbox_local_dir.d", "sandbox_git_repo.g"} {
		if a := stateAttrs(t, after, addr); a["files"] != nil || a["file_permissions"] != nil {
			t.Errorf("%s still records files after the upgrade: %v", addr, a["files"])
		}
	}

	copyRoot := after.attr(t, "sandbox_local_dir.d", "absolute_path")
	repoRoot := after.attr(t, "sandbox_git_repo.g", "absolute_path")
	must(t, os.WriteFile(filepath.Join(copyRoot, "a.txt"), []byte("tampered"), 0o644))
	must(t, os.WriteFile(filepath.Join(repoRoot, "README.md"), []byte("tampered"), 0o644))
	out := c.run("plan-drift.log", "plan", "-input=false", "-no-color")
	expectPlanLines(t, planBlock(t, out, "sandbox_local_dir.d"), 30, `"modify a.txt"`)
	expectPlanLines(t, planBlock(t, out, "sandbox_git_repo.g"), 30, `"modify README.md"`)
	c.run("apply-drift.log", "apply", "-input=false", "-auto-approve", "-no-color")
	must(t, expectFile(filepath.Join(copyRoot, "a.txt"), "0123456789", 0o644))
	must(t, expectFile(filepath.Join(repoRoot, "README.md"), "hello\n", 0o644))
}

// withoutPrivateKey returns a state instance's private data (base64 of a
// JSON object of base64 values) without key.
func withoutPrivateKey(t *testing.T, private any, key string) string {
	t.Helper()
	s, _ := private.(string)
	raw, err := base64.StdEncoding.DecodeString(s)
	must(t, err)
	var m map[string]any
	must(t, json.Unmarshal(raw, &m))
	if _, ok := m[key]; !ok {
		t.Fatalf("private state has no %q: %s", key, raw)
	}
	delete(m, key)
	raw, err = json.Marshal(m)
	must(t, err)
	return base64.StdEncoding.EncodeToString(raw)
}
