package provider

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// A refresh that finds nothing changed writes nothing new: `terraform
// apply -refresh-only` after an apply leaves the state's serial as it was.
// A workspace used to record "not paused" in its private state at every
// read (the create records nothing), and a file's write-only content was
// marked sensitive beside manifest_entry, so its sensitive paths came
// back in another order now and then: each refresh wrote a new state
// version to the backend.
func TestAccRefresh_writesNothingWhenNothingChanged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := requiredSandbox + `
resource "sandbox_workspace" "w" {
  local {}
}
resource "sandbox_dir" "d" {
  workspace_id = sandbox_workspace.w.id
  path         = "d"
}
resource "sandbox_file" "f" {
  workspace_id = sandbox_workspace.w.id
  path         = "d/a.txt"
  content      = "hello\n"
  depends_on   = [sandbox_dir.d]
}
resource "sandbox_file" "secret" {
  workspace_id       = sandbox_workspace.w.id
  path               = "s.txt"
  content_wo         = "not in state\n"
  content_wo_version = 1
}
`
	must(t, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg), 0o644))
	cli := newCLIRun(t, dir)
	t.Cleanup(func() { cli.exitCode("destroy.log", "destroy", "-auto-approve", "-input=false", "-no-color") })
	cli.run("apply.log", "apply", "-auto-approve", "-input=false", "-no-color")
	serial := func() float64 {
		b, err := os.ReadFile(filepath.Join(dir, "terraform.tfstate"))
		must(t, err)
		var s struct {
			Serial float64 `json:"serial"`
		}
		must(t, json.Unmarshal(b, &s))
		return s.Serial
	}
	before := serial()
	for i := range 3 {
		cli.run("refresh.log", "apply", "-refresh-only", "-auto-approve", "-input=false", "-no-color")
		if got := serial(); got != before {
			b, _ := os.ReadFile(filepath.Join(dir, "terraform.tfstate"))
			t.Fatalf("refresh %d wrote state serial %v (was %v) with nothing changed:\n%s", i+1, got, before, b)
		}
	}
}
