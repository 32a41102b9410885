package provider

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func localDirConfig(env *testEnv, source string) string {
	return env.config(fmt.Sprintf(`
resource "sandbox_local_dir" "d" {
  workspace_id = sandbox_workspace.ws.id
  path         = "skills"
  source       = %q
  permissions  = "0750"
  # The lifecycle test follows each file's own mode through edits, and
  # reads the per-file digests and modes from the plan.
  keep_source_permissions = true
  record_files            = true
}
`, source))
}

func sha(s string) string { return fmt.Sprintf("%x", sha256.Sum256([]byte(s))) }

// treeDigest is the documented tree_sha256: SHA-256 of sha256sum lines
// sorted by path.
func treeDigest(files map[string]string) string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s  %s\n", sha(files[n]), n)
	}
	return sha(b.String())
}

// checkTree asserts that the workspace copy holds exactly files (path →
// content), each with the given mode.
func checkTree(env *testEnv, files map[string]string, modes map[string]os.FileMode) resource.TestCheckFunc {
	return func(*terraform.State) error {
		root := filepath.Join(env.wsRoot(), "skills")
		found := map[string]bool{}
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			found[rel] = true
			want, ok := files[rel]
			if !ok {
				return fmt.Errorf("unexpected file %s in the copy", rel)
			}
			return expectFile(p, want, modes[rel])
		})
		if err != nil {
			return err
		}
		for rel := range files {
			if !found[rel] {
				return fmt.Errorf("file %s missing from the copy", rel)
			}
		}
		m, err := fileMode(root)
		if err != nil {
			return err
		}
		if m != 0o750 {
			return fmt.Errorf("copy root has mode %04o, want 0750", m)
		}
		return nil
	}
}

func TestAccLocalDir_lifecycle(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	files := map[string]string{"SKILL.md": "# skill\n", "prompts/a.txt": "alpha\n", "prompts/deep/b.txt": "beta\n", "run.sh": "#!/bin/sh\necho hi\n"}
	modes := map[string]os.FileMode{"SKILL.md": 0o644, "prompts/a.txt": 0o600, "prompts/deep/b.txt": 0o644, "run.sh": 0o755}
	for rel, c := range files {
		env.writeSource(filepath.Join("tree", rel), c, modes[rel])
	}
	srcDir := filepath.Join(env.src, "tree")
	modeChecks := map[string]knownvalue.Check{}
	for rel, m := range modes {
		modeChecks[rel] = knownvalue.StringExact(fmt.Sprintf("%04o", m))
	}
	planned := func(files map[string]string) []plancheck.PlanCheck {
		exp := map[string]knownvalue.Check{}
		var total int64
		for rel, c := range files {
			exp[rel] = knownvalue.StringExact(sha(c))
			total += int64(len(c))
		}
		return []plancheck.PlanCheck{
			plancheck.ExpectKnownValue("sandbox_local_dir.d", tfjsonpath.New("files"), knownvalue.MapExact(exp)),
			plancheck.ExpectKnownValue("sandbox_local_dir.d", tfjsonpath.New("file_count"), knownvalue.Int64Exact(int64(len(files)))),
			plancheck.ExpectKnownValue("sandbox_local_dir.d", tfjsonpath.New("total_bytes"), knownvalue.Int64Exact(total)),
			plancheck.ExpectKnownValue("sandbox_local_dir.d", tfjsonpath.New("tree_sha256"), knownvalue.StringExact(treeDigest(files))),
			plancheck.ExpectKnownValue("sandbox_local_dir.d", tfjsonpath.New("file_permissions"), knownvalue.MapExact(modeChecks)),
		}
	}
	edited := map[string]string{}
	for k, v := range files {
		edited[k] = v
	}
	edited["prompts/a.txt"] = "alpha v2\n"
	var runIno uint64
	inode := func(p string) uint64 {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Sys().(*syscall.Stat_t).Ino
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config:           localDirConfig(env, srcDir),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: planned(files)},
				Check:            checkTree(env, files, modes),
			},
			{
				// An edited source file shows in the plan as an update.
				PreConfig: func() { env.writeSource("tree/prompts/a.txt", "alpha v2\n", 0o600) },
				Config:    localDirConfig(env, srcDir),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: append(planned(edited), plancheck.ExpectResourceAction("sandbox_local_dir.d", plancheck.ResourceActionUpdate)),
				},
				Check: checkTree(env, edited, modes),
			},
			{
				// In the workspace: one file changed, one deleted, one added,
				// one mode changed. The apply restores exactly the source,
				// touching only what differs.
				PreConfig: func() {
					root := filepath.Join(env.wsRoot(), "skills")
					must(t, os.WriteFile(filepath.Join(root, "SKILL.md"), []byte("tampered"), 0o644))
					must(t, os.Remove(filepath.Join(root, "prompts/deep/b.txt")))
					must(t, os.WriteFile(filepath.Join(root, "extra.txt"), []byte("junk"), 0o644))
					must(t, os.Chmod(filepath.Join(root, "run.sh"), 0o600))
					runIno = inode(filepath.Join(root, "run.sh"))
				},
				Config: localDirConfig(env, srcDir),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("sandbox_local_dir.d", plancheck.ResourceActionUpdate)},
				},
				Check: resource.ComposeTestCheckFunc(
					checkTree(env, edited, modes),
					func(*terraform.State) error {
						// run.sh only had its mode changed: it is chmodded, not re-copied.
						if got := inode(filepath.Join(env.wsRoot(), "skills/run.sh")); got != runIno {
							return fmt.Errorf("run.sh was rewritten (inode %d, was %d)", got, runIno)
						}
						return nil
					},
				),
			},
			{
				// Only a mode changed in the workspace: the plan shows it and
				// the apply restores it.
				PreConfig: func() {
					must(t, os.Chmod(filepath.Join(env.wsRoot(), "skills/prompts/a.txt"), 0o666))
				},
				Config: localDirConfig(env, srcDir),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("sandbox_local_dir.d", plancheck.ResourceActionUpdate)},
				},
				Check: checkTree(env, edited, modes),
			},
			{
				ResourceName:      "sandbox_local_dir.d",
				ImportState:       true,
				ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"source", "keep_source_permissions", "permissions", "manifest_entry",
					"record_files", "files", "file_permissions", "changes"},
			},
		},
		CheckDestroy: func(*terraform.State) error {
			// The workspace is destroyed with it; nothing of it remains.
			entries, _ := os.ReadDir(env.base)
			for _, e := range entries {
				if !strings.HasPrefix(e.Name(), ".") {
					return fmt.Errorf("workspace %s left behind after destroy", e.Name())
				}
			}
			return nil
		},
	})
}

func TestAccLocalDir_symlinkRefused(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	env.writeSource("tree/ok.txt", "ok", 0o644)
	env.writeSource("secret.txt", "secret", 0o600)
	must(t, os.MkdirAll(filepath.Join(env.src, "tree/nested"), 0o755))
	must(t, os.Symlink(filepath.Join(env.src, "secret.txt"), filepath.Join(env.src, "tree/nested/link")))
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config:      localDirConfig(env, filepath.Join(env.src, "tree")),
			PlanOnly:    true,
			ExpectError: errRe("child: nested/link"),
		}, {
			Config:      localDirConfig(env, filepath.Join(env.src, "tree")),
			PlanOnly:    true,
			ExpectError: errRe("reason: symlink_not_supported"),
		}},
	})
}

func TestAccLocalDir_outsideBaseDir(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	outside := t.TempDir()
	must(t, os.WriteFile(filepath.Join(outside, "f"), []byte("f"), 0o644))
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config:      localDirConfig(env, outside),
			PlanOnly:    true,
			ExpectError: errRe("reason: outside_base_dir"),
		}},
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestAccLocalDir_sourceHoldingWorkspacesRefused(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	// The grant covers the parent of local_base_dir: a copy of it would
	// copy the workspaces into themselves.
	parent := filepath.Dir(env.base)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
provider "sandbox" {
  local_base_dir    = %q
  extra_path_grants = [{ path = %q }]
}
resource "sandbox_workspace" "ws" {
  local {}
}
resource "sandbox_local_dir" "d" {
  workspace_id = sandbox_workspace.ws.id
  path         = "copy"
  source       = %q
}
`, env.base, parent, parent),
			PlanOnly:    true,
			ExpectError: errRe("holds the provider's local_base_dir"),
		}},
	})
}
