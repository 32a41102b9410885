package provider

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// roundTripConfig declares entries with the individual resources in
// sandbox_workspace.ws, renders them with data.sandbox_manifest and applies
// the JSON with sandbox_manifest in sandbox_workspace.ws2.
func roundTripConfig(env *testEnv, withManifest bool) string {
	manifest := ""
	if withManifest {
		manifest = `
resource "sandbox_manifest" "m" {
  workspace_id  = sandbox_workspace.ws2.id
  manifest_json = data.sandbox_manifest.m.json
}`
	}
	return env.config(fmt.Sprintf(`
resource "sandbox_workspace" "ws2" {
  local {}
}

resource "sandbox_dir" "docs" {
  workspace_id = sandbox_workspace.ws.id
  path         = "docs"
  permissions  = "0750"
}

resource "sandbox_file" "readme" {
  workspace_id = sandbox_workspace.ws.id
  path         = "${sandbox_dir.docs.path}/readme.md" # after the dir: its mode is not raced

  content      = "# héllo\n"
  permissions  = "-rw-r-----"
  description  = "the readme"
}

resource "sandbox_file" "tool" {
  workspace_id = sandbox_workspace.ws.id
  path         = "bin/tool.sh"
  source       = %q
  permissions  = "0700"
}

resource "sandbox_local_dir" "skills" {
  workspace_id = sandbox_workspace.ws.id
  path         = "skills"
  source       = %q
  permissions  = "0750"
}

data "sandbox_manifest" "m" {
  entries = {
    (sandbox_dir.docs.path)       = sandbox_dir.docs.manifest_entry
    (sandbox_file.readme.path)    = sandbox_file.readme.manifest_entry
    (sandbox_file.tool.path)      = sandbox_file.tool.manifest_entry
    (sandbox_local_dir.skills.path) = sandbox_local_dir.skills.manifest_entry
  }
}
%s
`, filepath.Join(env.src, "tool.sh"), filepath.Join(env.src, "skills"), manifest))
}

// rootOf returns the root of a workspace resource from state.
func rootOf(s *terraform.State, name string) (string, error) {
	r, ok := s.RootModule().Resources[name]
	if !ok {
		return "", fmt.Errorf("%s not in state", name)
	}
	return r.Primary.Attributes["root"], nil
}

// snapshot lists every path below root with its type, mode and, for
// files, the SHA-256 of what is on disk.
func snapshot(root string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		desc := fmt.Sprintf("%v", fi.Mode())
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		out[rel] = desc
		return nil
	})
	return out, err
}

// checkSameWorkspaces compares the two workspaces on disk.
func checkSameWorkspaces(wantPaths int) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		a, err := rootOf(s, "sandbox_workspace.ws")
		if err != nil {
			return err
		}
		b, err := rootOf(s, "sandbox_workspace.ws2")
		if err != nil {
			return err
		}
		sa, err := snapshot(a)
		if err != nil {
			return err
		}
		sb, err := snapshot(b)
		if err != nil {
			return err
		}
		if len(sa) != wantPaths {
			return fmt.Errorf("individual resources wrote %d paths, want %d: %v", len(sa), wantPaths, sa)
		}
		var diffs []string
		for p, d := range sa {
			if sb[p] != d {
				diffs = append(diffs, fmt.Sprintf("%s: resources %q, manifest %q", p, d, sb[p]))
			}
		}
		for p, d := range sb {
			if _, ok := sa[p]; !ok {
				diffs = append(diffs, fmt.Sprintf("%s: only in the manifest's workspace (%s)", p, d))
			}
		}
		if len(diffs) > 0 {
			return fmt.Errorf("workspaces differ:\n%s", strings.Join(sortStrings(diffs), "\n"))
		}
		return nil
	}
}

func TestAccManifestRoundTrip(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	env.writeSource("tool.sh", "#!/bin/sh\necho hi\n", 0o755)
	env.writeSource("skills/a.md", "a\n", 0o644)
	env.writeSource("skills/deep/b.md", "b\n", 0o600)
	var ws2 string
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   requireTF111,
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{
				Config: roundTripConfig(env, true),
				Check: resource.ComposeTestCheckFunc(
					// docs, docs/readme.md, bin, bin/tool.sh, skills, skills/a.md, skills/deep, skills/deep/b.md
					checkSameWorkspaces(8),
					resource.TestCheckResourceAttrPair("sandbox_manifest.m", "files.docs/readme.md", "sandbox_file.readme", "content_sha256"),
					resource.TestCheckResourceAttrPair("sandbox_manifest.m", "entries.bin/tool.sh.sha256", "sandbox_file.tool", "content_sha256"),
					resource.TestCheckResourceAttrPair("sandbox_manifest.m", "entries.skills.sha256", "sandbox_local_dir.skills", "tree_sha256"),
					resource.TestCheckResourceAttr("sandbox_manifest.m", "entries.docs.permissions", "0750"),
					resource.TestCheckNoResourceAttr("sandbox_manifest.m", "entries.docs.sha256"),
					resource.TestCheckResourceAttr("sandbox_manifest.m", "entries.skills.type", "local_dir"),
					func(s *terraform.State) error {
						var err error
						ws2, err = rootOf(s, "sandbox_workspace.ws2")
						return err
					},
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// Drift in the manifest's workspace: changed content, a
				// re-moded file, a file added to the copy, a deleted dir.
				PreConfig: func() {
					for _, err := range []error{
						os.WriteFile(filepath.Join(ws2, "docs/readme.md"), []byte("tampered"), 0o640),
						os.Chmod(filepath.Join(ws2, "bin/tool.sh"), 0o777),
						os.WriteFile(filepath.Join(ws2, "skills/extra.txt"), []byte("x"), 0o644),
						os.RemoveAll(filepath.Join(ws2, "skills/deep")),
					} {
						if err != nil {
							t.Fatal(err)
						}
					}
				},
				Config: roundTripConfig(env, true),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("sandbox_manifest.m", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("sandbox_file.readme", plancheck.ResourceActionNoop),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: checkSameWorkspaces(8),
			},
			{
				// Destroying the manifest removes only what it wrote.
				PreConfig: func() {
					if err := os.WriteFile(filepath.Join(ws2, "docs/notes.txt"), []byte("mine"), 0o644); err != nil {
						t.Fatal(err)
					}
				},
				Config: roundTripConfig(env, false),
				Check: func(*terraform.State) error {
					left, err := snapshot(ws2)
					if err != nil {
						return err
					}
					var paths []string
					for p := range left {
						paths = append(paths, p)
					}
					// bin stays as sandbox_file leaves a parent it did not declare.
					if got := strings.Join(sortStrings(paths), ","); got != "bin,docs,docs/notes.txt" {
						return fmt.Errorf("after destroying the manifest the workspace holds %s", got)
					}
					return nil
				},
			},
		},
	})
}

func sortStrings(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

func manifestConfig(env *testEnv, manifestJSON string) string {
	return env.config(fmt.Sprintf(`
resource "sandbox_manifest" "m" {
  workspace_id  = sandbox_workspace.ws.id
  manifest_json = %q
}
`, manifestJSON))
}

func TestAccManifestPlanErrors(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	step := func(manifestJSON, want string) resource.TestStep {
		return resource.TestStep{Config: manifestConfig(env, manifestJSON), PlanOnly: true, ExpectError: errRe(want)}
	}
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   requireTF111,
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			step(`{"entries": {"x": {"type": "symlink"}}}`,
				"Unknown artifact type `symlink`. Registered types: azure_blob_mount, box_mount, dir, file, gcs_mount, git_repo, local_dir, local_file, r2_mount, s3_files_mount, s3_mount"),
			step(`{"entries": {"safe": {"type": "dir", "children": {"../outside.txt": {"type": "file", "content": "nope"}}}}}`,
				"manifest path must not escape root: safe/../outside.txt"),
			step(`{"entries": {"safe": {"type": "dir", "children": {"/tmp/outside.txt": {"type": "file", "content": "nope"}}}}}`,
				"manifest path must be relative: /tmp/outside.txt"),
			step(`{"entries": {"repo": {"type": "git_repo", "repo": "o/r", "ref": "main", "subpath": "../up"}}}`,
				"git repo subpath must be a relative path inside the repository: ../up"),
			step(`{"entries": {"m": {"type": "s3_mount", "bucket": "b"}}}`, "entries.mount_strategy: Field required"),
			step(`{"entries": {"m": {"type": "s3_mount", "bucket": "b", "access_key_id": "AKID", "mount_strategy": {"type": "in_container", "pattern": {"type": "rclone"}}}}}`,
				"sets access_key_id in the manifest's JSON, which is stored in plain text"),
			step(`{"version": 2}`, "version: Input should be 1"),
			step(`{"environment": {"value": {"A": "1"}}, "entries": {"f": {"type": "file", "content": ""}}}`,
				"sets environment (1 variables), which belongs to the workspace: set it with sandbox_workspace.environment"),
			step(`{"users": [{"name": "agent"}], "entries": {}}`, "declare them with sandbox_workspace.users"),
			step(`{"entries": {"f": {"type": "local_file", "src": "/etc/hostname"}}}`, "outside_base_dir"),
		},
	})
}

func TestAccManifestFromJSON(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	src := env.writeSource("prompt.txt", "be brief\n", 0o644)
	v1 := fmt.Sprintf(`{"version": 1, "root": "/workspace", "entries": {
		"repo": {"type": "dir", "permissions": {"owner": 7, "group": 5, "other": 0, "directory": true}, "children": {
			"NOTES.md": {"type": "file", "content": "v1\n", "permissions": {"owner": 6, "group": 4, "other": 4}},
			"out": {"type": "dir", "children": {"keep.txt": {"type": "file", "content": "k"}}}}},
		"prompt.txt": {"type": "local_file", "src": %q, "permissions": {"owner": 6}}},
		"unknown_key": true}`, src)
	v2 := fmt.Sprintf(`{"entries": {
		"repo": {"type": "dir", "permissions": {"owner": 7, "group": 5, "other": 0}, "children": {
			"NOTES.md": {"type": "file", "content": "v2\n", "permissions": {"owner": 6, "group": 4, "other": 4}}}},
		"prompt.txt": {"type": "local_file", "src": %q, "permissions": {"owner": 6}}}}`, src)
	file := func(rel, content string, mode os.FileMode) resource.TestCheckFunc {
		return func(*terraform.State) error { return expectFile(filepath.Join(env.wsRoot(), rel), content, mode) }
	}
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   requireTF111,
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{
				Config: manifestConfig(env, v1),
				Check: resource.ComposeTestCheckFunc(
					file("repo/NOTES.md", "v1\n", 0o644),
					file("repo/out/keep.txt", "k", 0o755),
					file("prompt.txt", "be brief\n", 0o600),
					func(*terraform.State) error {
						if m, err := fileMode(filepath.Join(env.wsRoot(), "repo")); err != nil || m != 0o750 {
							return fmt.Errorf("repo mode %04o (%w), want 0750", m, err)
						}
						return nil
					},
					resource.TestCheckResourceAttr("sandbox_manifest.m", "entries.repo/out/keep.txt.sha256", sha("k")),
					resource.TestCheckResourceAttr("sandbox_manifest.m", "entries.prompt.txt.sha256", sha("be brief\n")),
					resource.TestCheckResourceAttr("sandbox_manifest.m", "entries.repo/out.type", "dir"),
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// An edited manifest: changed content, entries dropped.
				Config: manifestConfig(env, v2),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("sandbox_manifest.m", plancheck.ResourceActionUpdate)},
				},
				Check: resource.ComposeTestCheckFunc(
					file("repo/NOTES.md", "v2\n", 0o644),
					func(*terraform.State) error {
						if _, err := os.Lstat(filepath.Join(env.wsRoot(), "repo/out")); !os.IsNotExist(err) {
							return fmt.Errorf("repo/out should be gone with its entry: %w", err)
						}
						return nil
					},
				),
			},
			{
				// A deleted file is put back.
				PreConfig: func() {
					if err := os.Remove(filepath.Join(env.wsRoot(), "prompt.txt")); err != nil {
						t.Fatal(err)
					}
				},
				Config: manifestConfig(env, v2),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("sandbox_manifest.m", plancheck.ResourceActionUpdate)},
				},
				Check: file("prompt.txt", "be brief\n", 0o600),
			},
		},
		CheckDestroy: func(*terraform.State) error {
			roots, _ := filepath.Glob(filepath.Join(env.base, "[^.]*"))
			if len(roots) > 0 {
				return fmt.Errorf("workspace left behind: %v", roots)
			}
			return nil
		},
	})
}
