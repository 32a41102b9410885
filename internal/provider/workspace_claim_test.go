package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// TestAccWorkspace_rootRemovedAndForeignDirectories: an explicit root
// removed out of band plans its re-creation and applies; a directory that
// is not a workspace is neither imported nor written into through a
// hand-made id, and nothing in it is touched.
func TestAccWorkspace_rootRemovedAndForeignDirectories(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	root := filepath.Join(t.TempDir(), "agent-1")
	decoy := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(decoy, ".ssh"), 0o700))
	must(t, os.WriteFile(filepath.Join(decoy, ".bashrc"), []byte("# mine\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(decoy, ".ssh", "id_rsa"), []byte("KEY"), 0o600))
	must(t, os.Chmod(filepath.Join(decoy, ".bashrc"), 0o644)) // whatever the umask
	cfg := fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
resource "sandbox_workspace" "ws" {
  root = %q
  local {}
}
resource "sandbox_file" "f" {
  workspace_id = sandbox_workspace.ws.id
  path         = "hello.txt"
  content      = "hi"
}
`, env.base, root)
	decoyUntouched := func() {
		t.Helper()
		if err := expectFile(filepath.Join(decoy, ".bashrc"), "# mine\n", 0o644); err != nil {
			t.Fatal(err)
		}
		if err := expectFile(filepath.Join(decoy, ".ssh", "id_rsa"), "KEY", 0o600); err != nil {
			t.Fatal(err)
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				PreConfig: func() { must(t, os.RemoveAll(root)) },
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction("sandbox_file.f", plancheck.ResourceActionCreate),
				}},
				Check: func(*terraform.State) error { return expectFile(filepath.Join(root, "hello.txt"), "hi", 0o755) },
			},
			{
				ResourceName:  "sandbox_workspace.ws",
				ImportState:   true,
				ImportStateId: decoy,
				ExpectError:   errRe("is not a workspace of this provider"),
			},
			{
				PreConfig: decoyUntouched,
				Config: cfg + fmt.Sprintf(`
resource "sandbox_file" "intruder" {
  workspace_id = "local:0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11:%s"
  path         = ".bashrc"
  content      = "pwned"
}
`, decoy),
				ExpectError: errRe("is not workspace 0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11"),
			},
			{PreConfig: decoyUntouched, Config: cfg, PlanOnly: true},
		},
	})
	decoyUntouched()
}

// TestAccWorkspace_racingClaims: two configurations naming one root,
// applied at the same moment: exactly one wins, the other fails with a
// clear error, and no file of the loser lands in the winner's root.
func TestAccWorkspace_racingClaims(t *testing.T) {
	root := filepath.Join(t.TempDir(), "contested")
	dirs := [2]string{t.TempDir(), t.TempDir()}
	runs := [2]*cliRun{}
	for i, dir := range dirs {
		body := requiredSandbox + fmt.Sprintf(`
resource "sandbox_workspace" "ws" {
  root = %q
  local {}
}
`, root)
		for j := range 30 {
			body += fmt.Sprintf(`
resource "sandbox_file" "f%d" {
  workspace_id = sandbox_workspace.ws.id
  path         = "config-%d/file-%d.txt"
  content      = "from configuration %d"
}
`, j, i, j, i)
		}
		must(t, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(body), 0o644))
		runs[i] = newCLIRun(t, dir)
	}
	var wg sync.WaitGroup
	codes := [2]int{}
	outs := [2]string{}
	for i, c := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = c.exitCode("apply.log", "apply", "-input=false", "-auto-approve", "-no-color")
			outs[i] = c.last
		}()
	}
	wg.Wait()
	winner := -1
	for i, code := range codes {
		if code == 0 {
			if winner >= 0 {
				t.Fatalf("both configurations claimed %s", root)
			}
			winner = i
		} else if !strings.Contains(outs[i], "already") && !strings.Contains(outs[i], "non-empty") {
			t.Fatalf("the losing apply failed without saying the root is taken:\n%s", outs[i])
		}
	}
	if winner < 0 {
		t.Fatalf("neither apply won:\n%s\n%s", outs[0], outs[1])
	}
	entries, err := os.ReadDir(root)
	must(t, err)
	if len(entries) != 1 || entries[0].Name() != fmt.Sprintf("config-%d", winner) {
		t.Fatalf("the root holds %v; want only config-%d", entries, winner)
	}
	files, err := os.ReadDir(filepath.Join(root, entries[0].Name()))
	must(t, err)
	if len(files) != 30 {
		t.Fatalf("the winner wrote %d files, want 30", len(files))
	}
	runs[winner].run("destroy.log", "destroy", "-input=false", "-auto-approve", "-no-color")
	if _, err := os.Lstat(root); !os.IsNotExist(err) {
		t.Fatalf("root survived the winner's destroy: %v", err)
	}
}
