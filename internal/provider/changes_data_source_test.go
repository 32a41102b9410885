package provider

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// changesConfig: a setup command writes three files, a snapshot takes
// them, then the "agent" edits one, adds one and deletes one; the data
// source compares the tree with the snapshot. extra is appended.
func changesConfig(env *testEnv, snaps, extra string) string {
	return fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
resource "sandbox_workspace" "ws" {
  local {}
}
resource "sandbox_command" "setup" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "printf 'one\\ntwo\\nthree\\n' > keep.txt; printf 'bye\\n' > gone.txt; printf 'same\\n' > same.txt; mkdir -p bin; printf '\\000\\001' > bin/blob"
}
resource "sandbox_snapshot" "base" {
  workspace_id = sandbox_command.setup.workspace_id
  local { base_path = %q }
}
resource "sandbox_command" "agent" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "printf 'one\\nTWO\\nthree\\n' > keep.txt; printf 'new\\n' > new.txt; rm gone.txt"
  triggers     = { after = sandbox_snapshot.base.id }
}
data "sandbox_changes" "c" {
  workspace_id    = sandbox_command.agent.workspace_id
  snapshot_path   = sandbox_snapshot.base.path
  snapshot_sha256 = sandbox_snapshot.base.sha256
}
output "summary" {
  value = data.sandbox_changes.c.summary
}
%s`, env.base, snaps, extra)
}

const wantChangesDiff = `--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
--- a/keep.txt
+++ b/keep.txt
@@ -1,3 +1,3 @@
 one
-two
+TWO
 three
--- /dev/null
+++ b/new.txt
@@ -0,0 +1 @@
+new
`

func changedFile(p, size, sum string, old ...string) knownvalue.Check {
	m := map[string]knownvalue.Check{"path": knownvalue.StringExact(p), "type": knownvalue.StringExact("file"),
		"size": knownvalue.Int64Exact(mustInt(size)), "sha256": knownvalue.StringExact(sum),
		"old_size": knownvalue.Null(), "old_sha256": knownvalue.Null()}
	if len(old) == 2 {
		m["old_size"], m["old_sha256"] = knownvalue.Int64Exact(mustInt(old[0])), knownvalue.StringExact(old[1])
	}
	return knownvalue.ObjectExact(m)
}

func mustInt(s string) int64 {
	var n int64
	if _, err := fmt.Sscan(s, &n); err != nil {
		panic(err)
	}
	return n
}

func TestAccChanges_editAddDelete(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	snaps := filepath.Join(t.TempDir(), "snaps")
	summary := fmt.Sprintf("A new.txt %s\nM keep.txt %s\nD gone.txt %s\n", sha("new\n"), sha("one\nTWO\nthree\n"), sha("bye\n"))
	withDiff := changesConfig(env, snaps, `
output "diff" {
  value = data.sandbox_changes.c.diff
}
output "modified" {
  value = data.sandbox_changes.c.modified
}
`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{
				Config: changesConfig(env, snaps, ""),
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("data.sandbox_changes.c", "summary", summary),
					resource.TestCheckResourceAttr("data.sandbox_changes.c", "diff", wantChangesDiff),
					resource.TestCheckResourceAttr("data.sandbox_changes.c", "diff_truncated", "false"),
					resource.TestCheckResourceAttr("data.sandbox_changes.c", "added.#", "1"),
					resource.TestCheckResourceAttr("data.sandbox_changes.c", "added.0.path", "new.txt"),
					resource.TestCheckResourceAttr("data.sandbox_changes.c", "added.0.size", "4"),
					resource.TestCheckResourceAttr("data.sandbox_changes.c", "added.0.sha256", sha("new\n")),
					resource.TestCheckResourceAttr("data.sandbox_changes.c", "modified.#", "1"),
					resource.TestCheckResourceAttr("data.sandbox_changes.c", "modified.0.path", "keep.txt"),
					resource.TestCheckResourceAttr("data.sandbox_changes.c", "modified.0.old_sha256", sha("one\ntwo\nthree\n")),
					resource.TestCheckResourceAttr("data.sandbox_changes.c", "removed.#", "1"),
					resource.TestCheckResourceAttr("data.sandbox_changes.c", "removed.0.path", "gone.txt"),
					resource.TestCheckResourceAttr("data.sandbox_changes.c", "removed.0.size", "4"),
					resource.TestCheckResourceAttr("data.sandbox_changes.c", "removed.0.sha256", sha("bye\n")),
				),
			},
			{
				// The changes are read at plan time: a new output shows them in the plan.
				Config: withDiff,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownOutputValue("summary", knownvalue.StringExact(summary)),
					plancheck.ExpectKnownOutputValue("diff", knownvalue.StringExact(wantChangesDiff)),
					plancheck.ExpectKnownOutputValue("modified", knownvalue.ListExact([]knownvalue.Check{
						changedFile("keep.txt", "14", sha("one\nTWO\nthree\n"), "14", sha("one\ntwo\nthree\n")),
					})),
				}},
			},
		},
	})
}

// Against declared digests: unlisted files are added, a listed one gone
// is removed (size -1: only its digest is known), no diff without the old
// content.
func TestAccChanges_entries(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	cfg := fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
resource "sandbox_workspace" "ws" {
  local {}
}
resource "sandbox_file" "a" {
  workspace_id = sandbox_workspace.ws.id
  path         = "a.txt"
  content      = "a\n"
}
resource "sandbox_command" "agent" {
  workspace_id = sandbox_file.a.workspace_id
  shell        = "printf 'x\\n' > b.txt"
}
data "sandbox_changes" "c" {
  workspace_id = sandbox_command.agent.workspace_id
  entries      = { (sandbox_file.a.path) = sandbox_file.a.content_sha256, "gone.txt" = %q }
}
`, env.base, sha("gone\n"))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: cfg,
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr("data.sandbox_changes.c", "summary",
					fmt.Sprintf("A b.txt %s\nD gone.txt %s\n", sha("x\n"), sha("gone\n"))),
				resource.TestCheckResourceAttr("data.sandbox_changes.c", "removed.0.size", "-1"),
				resource.TestCheckResourceAttr("data.sandbox_changes.c", "diff", "--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+x\n"),
			),
		}},
	})
}

// What the agent writes cannot drive the terminal of whoever reads the plan:
// escape sequences, carriage returns, bidirectional and zero-width
// characters in a changed file's diff and in a file's name are shown
// escaped.
func TestAccChanges_terminalEscapes(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	snaps := filepath.Join(t.TempDir(), "snaps")
	cfg := fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
resource "sandbox_workspace" "ws" {
  local {}
}
resource "sandbox_snapshot" "base" {
  workspace_id = sandbox_workspace.ws.id
  local { base_path = %q }
}
resource "sandbox_command" "agent" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "printf 'score 0\\033[2K\\rscore 1\\342\\200\\256x\\342\\200\\213\\n' > r.txt; printf 'y\\n' > \"$(printf 'a\\342\\200\\256b\\033c.txt')\""
  triggers     = { after = sandbox_snapshot.base.id }
}
data "sandbox_changes" "c" {
  workspace_id    = sandbox_command.agent.workspace_id
  snapshot_path   = sandbox_snapshot.base.path
  snapshot_sha256 = sandbox_snapshot.base.sha256
}
output "diff" {
  value = data.sandbox_changes.c.diff
}
`, env.base, snaps)
	name := `a\u202eb\x1bc.txt`
	diff := "--- /dev/null\n+++ b/" + name + "\n@@ -0,0 +1 @@\n+y\n" +
		"--- /dev/null\n+++ b/r.txt\n@@ -0,0 +1 @@\n+score 0\\x1b[2K\\x0dscore 1\\u202ex\\u200b\n"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("data.sandbox_changes.c", "added.#", "2"),
					resource.TestCheckResourceAttr("data.sandbox_changes.c", "added.0.path", name),
					resource.TestCheckResourceAttr("data.sandbox_changes.c", "diff", diff),
				),
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownOutputValue("diff", knownvalue.StringExact(diff)),
				}},
			},
		},
	})
}
