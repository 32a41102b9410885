package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// inputsConfig: a workspace with a requirements file and a setup command
// (shell, env), snapshotted with inputs naming both.
func inputsConfig(env *testEnv, snaps, content, shell, envValue string) string {
	return fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
locals {
  setup = { shell = %q, environment = { MODE = %q } }
}
resource "sandbox_workspace" "ws" {
  local {}
}
resource "sandbox_file" "req" {
  workspace_id = sandbox_workspace.ws.id
  path         = "requirements.txt"
  content      = %q
}
resource "sandbox_command" "setup" {
  workspace_id = sandbox_file.req.workspace_id
  shell        = local.setup.shell
  environment  = local.setup.environment
}
resource "sandbox_snapshot" "s" {
  workspace_id = sandbox_command.setup.workspace_id
  local { base_path = %q }
  inputs = {
    entries  = { (sandbox_file.req.path) = sandbox_file.req.content_sha256 }
    commands = [local.setup]
  }
}
`, env.base, shell, envValue, content, snaps)
}

// wantInputs is the documented digest, from its canonical JSON written out.
func wantInputs(content, shell string) string {
	return sha(fmt.Sprintf(`{"version":"sandbox_inputs_v1","image":"","image_digest":"","entries":{"requirements.txt":%q},`+
		`"commands":[{"command":[],"shell":%q,"working_dir":"","environment":["MODE"]}]}`, sha(content), shell))
}

func TestAccSnapshot_inputsSHA256KnownAtPlan(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	snaps := filepath.Join(t.TempDir(), "snaps")
	planned := func(sum string, action plancheck.ResourceActionType) resource.ConfigPlanChecks {
		return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction("sandbox_snapshot.s", action),
			plancheck.ExpectKnownValue("sandbox_snapshot.s", tfjsonpath.New("inputs_sha256"), knownvalue.StringExact(sum)),
		}}
	}
	index := func(sum string) resource.TestCheckFunc {
		return func(s *terraform.State) error {
			a := s.RootModule().Resources["sandbox_snapshot.s"].Primary.Attributes
			b, err := os.ReadFile(filepath.Join(snaps, a["snapshot_id"]+".inputs.json"))
			if err != nil {
				return err
			}
			if !strings.Contains(string(b), `"inputs_sha256":"`+sum+`"`) || !strings.Contains(string(b), `"sha256":"`+a["sha256"]+`"`) {
				return fmt.Errorf("index %s", b)
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		CheckDestroy:             snapshotArchiveGone(snaps),
		Steps: []resource.TestStep{
			{
				Config:           inputsConfig(env, snaps, "flask\n", "echo setup", "a"),
				ConfigPlanChecks: planned(wantInputs("flask\n", "echo setup"), plancheck.ResourceActionCreate),
				Check:            index(wantInputs("flask\n", "echo setup")),
			},
			{
				// An environment value is not an input: the command runs again, the digest stays.
				Config: inputsConfig(env, snaps, "flask\n", "echo setup", "b"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("sandbox_snapshot.s", tfjsonpath.New("inputs_sha256"),
						knownvalue.StringExact(wantInputs("flask\n", "echo setup"))),
				}},
			},
			{
				Config:           inputsConfig(env, snaps, "flask\n", "echo setup", "b"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				Config:           inputsConfig(env, snaps, "flask\nrequests\n", "echo setup", "b"),
				ConfigPlanChecks: planned(wantInputs("flask\nrequests\n", "echo setup"), plancheck.ResourceActionReplace),
				Check:            index(wantInputs("flask\nrequests\n", "echo setup")),
			},
			{
				Config:           inputsConfig(env, snaps, "flask\nrequests\n", "echo setup v2", "b"),
				ConfigPlanChecks: planned(wantInputs("flask\nrequests\n", "echo setup v2"), plancheck.ResourceActionReplace),
			},
		},
	})
}

// cacheConfig is the guide's pattern: prepare (one workspace, setup that
// counts its runs in side, a snapshot with inputs) and, with evaluate,
// three forks restored from the snapshot the data source finds, which run
// the setup themselves only when none matches.
func cacheConfig(env *testEnv, cache, side, evalShell string, evaluate bool) string {
	cfg := fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
locals {
  setup  = { shell = "echo run >> %s; printf 'tool\\n' > tool.txt" }
  inputs = { commands = [local.setup] }
}
resource "sandbox_workspace" "prep" {
  local {}
}
resource "sandbox_command" "setup" {
  workspace_id = sandbox_workspace.prep.id
  shell        = local.setup.shell
}
resource "sandbox_snapshot" "env" {
  workspace_id = sandbox_command.setup.workspace_id
  inputs       = local.inputs
  local { base_path = %q }
}
`, env.base, side, cache)
	if !evaluate {
		return cfg
	}
	return cfg + fmt.Sprintf(`
locals {
  eval_setup = { shell = %q }
  env        = try(data.sandbox_snapshots.env.snapshots[0], null)
}
data "sandbox_snapshots" "env" {
  local { base_path = %q }
  inputs = { commands = [local.eval_setup] }
}
resource "sandbox_workspace" "agent" {
  count        = 3
  local {}
  restore_from = local.env == null ? null : { path = local.env.path, sha256 = local.env.sha256 }
}
resource "sandbox_command" "setup_here" {
  count        = local.env == null ? 3 : 0
  workspace_id = sandbox_workspace.agent[count.index].id
  shell        = local.eval_setup.shell
}
`, evalShell, cache)
}

func sideRuns(side string, want int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		b, err := os.ReadFile(side)
		if err != nil {
			return err
		}
		if got := strings.Count(string(b), "run\n"); got != want {
			return fmt.Errorf("setup ran %d times, want %d", got, want)
		}
		return nil
	}
}

func forksHaveTool(n int) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		seen := 0
		for name, r := range s.RootModule().Resources {
			if !strings.HasPrefix(name, "sandbox_workspace.agent") {
				continue
			}
			seen++
			if err := expectFile(filepath.Join(r.Primary.Attributes["root"], "tool.txt"), "tool\n", 0o600); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		if seen != n {
			return fmt.Errorf("%d forks, want %d", seen, n)
		}
		return nil
	}
}

func TestAccSnapshots_cacheSkipsSetup(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	dir := t.TempDir()
	cache, side := filepath.Join(dir, "cache"), filepath.Join(dir, "runs.log")
	shell := fmt.Sprintf("echo run >> %s; printf 'tool\\n' > tool.txt", side)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{Config: cacheConfig(env, cache, side, shell, false), Check: sideRuns(side, 1)},
			{
				// The same setup: the forks restore the prepared snapshot, nothing runs setup again.
				Config: cacheConfig(env, cache, side, shell, true),
				Check: resource.ComposeTestCheckFunc(sideRuns(side, 1), forksHaveTool(3),
					resource.TestCheckResourceAttr("data.sandbox_snapshots.env", "snapshots.#", "1"),
					resource.TestCheckResourceAttrPair("data.sandbox_snapshots.env", "snapshots.0.sha256", "sandbox_snapshot.env", "sha256"),
					resource.TestCheckResourceAttrPair("data.sandbox_snapshots.env", "inputs_sha256", "sandbox_snapshot.env", "inputs_sha256")),
			},
			{
				// Another setup text: no snapshot matches, each fork runs it.
				Config: cacheConfig(env, cache, side, shell+" ", true),
				Check: resource.ComposeTestCheckFunc(sideRuns(side, 4), forksHaveTool(3),
					resource.TestCheckResourceAttr("data.sandbox_snapshots.env", "snapshots.#", "0")),
			},
		},
	})
}
