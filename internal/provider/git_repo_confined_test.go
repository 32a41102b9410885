package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAccGitRepo_fileURLConfined: a file:// clone URL names a host
// directory, so it is confined like every host source: a repository
// outside the working directory and every extra_path_grants entry fails
// the plan on `url` with reason outside_base_dir, and nothing is fetched.
func TestAccGitRepo_fileURLConfined(t *testing.T) {
	t.Parallel()
	f := newGitFixture(t)
	f.create("private")
	f.commit("private", map[string]string{"secret.txt": "not for the agent\n"})
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(requiredSandbox+fmt.Sprintf(`
resource "sandbox_workspace" "ws" {
  local {}
}
resource "sandbox_git_repo" "g" {
  workspace_id = sandbox_workspace.ws.id
  path         = "repo"
  repo         = "private"
  url          = %q
  ref          = "main"
}
`, "file://"+filepath.Join(f.root, "private.git"))), 0o644))
	c := newCLIRun(t, dir)
	c.run("apply-ws.log", "apply", "-input=false", "-auto-approve", "-no-color", "-target=sandbox_workspace.ws")
	// The refused checkout is never created; destroy what was.
	t.Cleanup(func() {
		c.run("destroy.log", "destroy", "-input=false", "-auto-approve", "-no-color", "-target=sandbox_workspace.ws")
	})
	if code := c.exitCode("plan.log", "plan", "-input=false", "-no-color"); code != 1 {
		t.Fatalf("plan of a repository outside the working directory exited %d, want 1:\n%s", code, c.last)
	}
	// The heading names the reason, the detail the fix.
	for _, want := range []string{"Error: Local repository outside the working directory", "outside_base_dir", "url",
		"file:// URL", "extra_path_grants"} {
		if !strings.Contains(c.last, want) {
			t.Errorf("plan output does not mention %q:\n%s", want, c.last)
		}
	}
	if strings.Contains(c.last, "Cannot resolve ref") {
		t.Errorf("a confined repository is not an unknown ref:\n%s", c.last)
	}
}
