package provider

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io/fs"
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

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/fakes3"
)

// The fidelity suite: one tree declared twice, as a Python SDK manifest
// applied by sandbox_manifest (workspace ws2) and as the equivalent
// individual resources (workspace ws), must give the same paths, bytes,
// modes and groups, and both must match what the Python SDK's Unix-local
// sandbox makes of the manifest, recorded below. The tree includes an
// s3_mount of the in-memory S3 server (manifest_fidelity_mount_test.go).

var fidelityBlob = func() []byte { // every byte value: not UTF-8, so no File entry can carry it
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}()

const (
	fidelityReadme = "# héllo — ünïcode ✓\n"
	fidelityIntro  = "intro\n"
)

// fidelitySources writes the host sources: a binary file and a tree whose
// files have varied modes; and serves a Git repository with an executable
// and a nested directory. It returns the repository's clone URL.
func fidelitySources(e *testEnv) string {
	e.writeSource("blob.bin", string(fidelityBlob), 0o600)
	e.writeSource("tree/run.sh", "#!/bin/sh\necho hi\n", 0o755)
	e.writeSource("tree/secret.txt", "s3cret\n", 0o600)
	e.writeSource("tree/sub/conf.ini", "[x]\n", 0o640)
	f := newGitFixture(e.t)
	f.create("fixture/tools")
	f.commit("fixture/tools", map[string]string{"README.md": fidelityReadme, "bin/tool": "+x:#!/bin/sh\n", "lib/deep/x.txt": "x\n"})
	return f.daemon() + "fixture/tools.git"
}

// fidelityManifest is the manifest, written as the Python SDK's JSON: a dir
// with a group and children (one nested two levels below it), a dir three
// levels deep, a binary local_file, a local_dir, an empty file with the
// default permissions and a git_repo below an implicit parent.
func fidelityManifest(src string, srv *fakes3.Server) string {
	return fmt.Sprintf(`{"entries": {%s
  "docs": {"type": "dir", "group": {"name": "1"}, "permissions": {"owner": 7, "group": 5, "other": 0}, "children": {
    "readme.md": {"type": "file", "content": %q, "permissions": {"owner": 6, "group": 4, "other": 0}},
    "guide/intro.md": {"type": "file", "content": %q}}},
  "deep/x/y/z": {"type": "dir", "permissions": {"owner": 7, "group": 0, "other": 0}},
  "bin/blob.bin": {"type": "local_file", "src": %q, "permissions": {"owner": 6, "group": 0, "other": 0}},
  "tree": {"type": "local_dir", "src": %q, "permissions": {"owner": 7, "group": 5, "other": 0}},
  "plain.txt": {"type": "file", "content": ""},
  "vendor/tools": {"type": "git_repo", "repo": "fixture/tools", "ref": "main", "permissions": {"owner": 7, "group": 5, "other": 0}}}}`,
		fidelityMountEntry(srv), fidelityReadme, fidelityIntro, filepath.Join(src, "blob.bin"), filepath.Join(src, "tree"))
}

// fidelityResources declares the same tree with the individual resources.
func fidelityResources(src, gitURL string, srv *fakes3.Server) string {
	return fidelityMountResource(srv) + fmt.Sprintf(`
resource "sandbox_dir" "docs" {
  workspace_id = sandbox_workspace.ws.id
  path         = "docs"
  group        = "1"
  permissions  = "0750"
}
resource "sandbox_file" "readme" {
  workspace_id = sandbox_workspace.ws.id
  path         = "docs/readme.md"
  content      = %q
  permissions  = "0640"
}
resource "sandbox_file" "intro" {
  workspace_id = sandbox_workspace.ws.id
  path         = "docs/guide/intro.md"
  content      = %q
}
resource "sandbox_dir" "z" {
  workspace_id = sandbox_workspace.ws.id
  path         = "deep/x/y/z"
  permissions  = "0700"
}
resource "sandbox_file" "blob" {
  workspace_id   = sandbox_workspace.ws.id
  path           = "bin/blob.bin"
  content_base64 = %q
  permissions    = "0600"
}
resource "sandbox_local_dir" "tree" {
  workspace_id = sandbox_workspace.ws.id
  path         = "tree"
  source       = %q
  permissions  = "0750"
  record_files = true
}
resource "sandbox_file" "plain" {
  workspace_id = sandbox_workspace.ws.id
  path         = "plain.txt"
  content      = ""
}
resource "sandbox_git_repo" "tools" {
  workspace_id = sandbox_workspace.ws.id
  path         = "vendor/tools"
  repo         = "fixture/tools"
  url          = %q
  ref          = "main"
  permissions  = "0750"
}
`, fidelityReadme, fidelityIntro, base64.StdEncoding.EncodeToString(fidelityBlob), filepath.Join(src, "tree"), gitURL)
}

// fidelityWant is the tree the Python SDK's Unix-local sandbox makes of
// fidelityManifest as root with umask 022: every entry gets its own
// permissions (chmod) and group (chgrp); parents created on the way
// (bin, deep, deep/x, deep/x/y, docs/guide) are mkdir -p's 0755; the
// files a local_dir copies are new files, 0644, whatever their source
// mode, and its subdirectories 0755; a git_repo checkout (git clone) has
// the modes Git records, 0755 for executables, else 0644, and 0755
// directories. One line per path: path, mode, gid, and the SHA-256 of
// files. umask is that of the mount helper (fidelityMountWant).
func fidelityWant(umask os.FileMode) string {
	sum := func(b string) string { return fmt.Sprintf("%x", sha256.Sum256([]byte(b))) }
	lines := append([]string{
		"./bin drwxr-xr-x 0",
		"./bin/blob.bin -rw------- 0 " + sum(string(fidelityBlob)),
		"./deep drwxr-xr-x 0",
		"./deep/x drwxr-xr-x 0",
		"./deep/x/y drwxr-xr-x 0",
		"./deep/x/y/z drwx------ 0",
		"./docs drwxr-x--- 1",
		"./docs/guide drwxr-xr-x 0",
		"./docs/guide/intro.md -rwxr-xr-x 0 " + sum(fidelityIntro),
		"./docs/readme.md -rw-r----- 0 " + sum(fidelityReadme),
		"./plain.txt -rwxr-xr-x 0 " + sum(""),
		"./tree drwxr-x--- 0",
		"./tree/run.sh -rw-r--r-- 0 " + sum("#!/bin/sh\necho hi\n"),
		"./tree/secret.txt -rw-r--r-- 0 " + sum("s3cret\n"),
		"./tree/sub drwxr-xr-x 0",
		"./tree/sub/conf.ini -rw-r--r-- 0 " + sum("[x]\n"),
		"./vendor drwxr-xr-x 0",
		"./vendor/tools drwxr-x--- 0",
		"./vendor/tools/README.md -rw-r--r-- 0 " + sum(fidelityReadme),
		"./vendor/tools/bin drwxr-xr-x 0",
		"./vendor/tools/bin/tool -rwxr-xr-x 0 " + sum("#!/bin/sh\n"),
		"./vendor/tools/lib drwxr-xr-x 0",
		"./vendor/tools/lib/deep drwxr-xr-x 0",
		"./vendor/tools/lib/deep/x.txt -rw-r--r-- 0 " + sum("x\n"),
	}, fidelityMountWant(umask)...)
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// fidelityConfig is the whole configuration; wsBlock is the body of both
// workspaces, gitURL the clone URL of the git_repo entry.
func fidelityConfig(e *testEnv, wsBlock, gitURL string, srv *fakes3.Server) string {
	return fmt.Sprintf(`
provider "sandbox" {
  local_base_dir    = %q
  extra_path_grants = [{ path = %q, read_only = true }]
}
resource "sandbox_workspace" "ws" {
  %s
}
resource "sandbox_workspace" "ws2" {
  %s
}
resource "sandbox_manifest" "m" {
  workspace_id  = sandbox_workspace.ws2.id
  manifest_json = %s
  git_urls      = { "vendor/tools" = %q }
  %s
}
%s`, e.base, e.src, wsBlock, wsBlock, hclString(fidelityManifest(e.src, srv)), gitURL, fidelityMountCredentials,
		fidelityResources(e.src, gitURL, srv))
}

// listFidelityTree lists a host directory in fidelityWant's form.
func listFidelityTree(root string) (string, error) {
	var lines []string
	err := filepath.WalkDir(root, func(p string, _ fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		if filepath.Base(p) == fidelityGenerated {
			return filepath.SkipDir
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		line := fmt.Sprintf("./%s %v %d", rel, fi.Mode(), fi.Sys().(*syscall.Stat_t).Gid)
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		lines = append(lines, line)
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n"), err
}

// listContainer lists the workspace root of a container in the same form.
const listContainer = `cd /workspace && find . -mindepth 1 -path ./` + fidelityGenerated + ` -prune -o -print | LC_ALL=C sort | while read -r p; do
  if [ -f "$p" ]; then echo "$p $(stat -c '%A %g' "$p") $(sha256sum < "$p" | cut -d' ' -f1)"; else echo "$p $(stat -c '%A %g' "$p")"; fi
done`

// checkFidelity compares both workspaces, listed by list, with fidelityWant.
func checkFidelity(umask os.FileMode, list func(s *terraform.State, ws string) (string, error)) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		want := fidelityWant(umask)
		for _, ws := range []string{"sandbox_workspace.ws", "sandbox_workspace.ws2"} {
			got, err := list(s, ws)
			if err != nil {
				return err
			}
			if got != want {
				return fmt.Errorf("%s differs from the Python SDK's tree:\ngot:\n%s\nwant:\n%s", ws, got, want)
			}
		}
		return nil
	}
}

func fidelitySteps(e *testEnv, wsBlock, gitURL string, srv *fakes3.Server, umask os.FileMode,
	list func(s *terraform.State, ws string) (string, error), mountChecks resource.TestCheckFunc) []resource.TestStep {
	return []resource.TestStep{{
		Config:          fidelityConfig(e, wsBlock, gitURL, srv),
		ConfigVariables: s3Vars(srv),
		ConfigPlanChecks: resource.ConfigPlanChecks{
			PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue("sandbox_local_dir.tree", tfjsonpath.New("file_permissions"), knownvalue.MapExact(map[string]knownvalue.Check{
					"run.sh": knownvalue.StringExact("0644"), "secret.txt": knownvalue.StringExact("0644"), "sub/conf.ini": knownvalue.StringExact("0644"),
				})),
			},
			PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
		},
		Check: resource.ComposeTestCheckFunc(checkFidelity(umask, list), mountChecks),
	}}
}

func TestAccManifestFidelity(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	gitURL, srv := fidelitySources(env), fidelityMountServer(t)
	t.Cleanup(func() { fakes3.UnmountAllUnder(t, env.base) })
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   requireTF111,
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: fidelitySteps(env, "local {}", gitURL, srv, testUmask, func(s *terraform.State, ws string) (string, error) {
			root, err := rootOf(s, ws)
			if err != nil {
				return "", err
			}
			return listFidelityTree(root)
		}, localMountReadOnly(srv)),
	})
}

func TestAccDockerManifestFidelity(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	gitURL, srv := fidelitySources(env.testEnv), fidelityMountServer(t)
	// The host network reaches the S3 server on 127.0.0.1; fuse lets rclone mount.
	block := fmt.Sprintf("docker {\n    image        = %q\n    pull_policy  = \"never\"\n    network_mode = \"host\"\n    fuse         = true\n  }",
		dockertest.Image)
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   requireTF111,
		ProtoV6ProviderFactories: protoV6Factories,
		CheckDestroy:             env.checkGone,
		Steps: fidelitySteps(env.testEnv, block, gitURL, srv, 0o022, func(s *terraform.State, ws string) (string, error) {
			id := s.RootModule().Resources[ws].Primary.Attributes["container_id"]
			env.seen[id] = true
			return sh(id, listContainer)
		}, dockerMountReadOnly(srv)),
	})
}

// An existing copy with source modes (state written before copies were
// 0644, or with keep_source_permissions) is changed in place, never
// replaced, when it takes the Python SDK's 0644.
func TestAccLocalDir_sdkFileModesInPlace(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	env.writeSource("tree/run.sh", "#!/bin/sh\n", 0o755)
	cfg := func(keep string) string {
		return env.config(fmt.Sprintf(`
resource "sandbox_local_dir" "d" {
  workspace_id = sandbox_workspace.ws.id
  path         = "d"
  source       = %q
  %s
}`, filepath.Join(env.src, "tree"), keep))
	}
	mode := func(want os.FileMode) resource.TestCheckFunc {
		return func(*terraform.State) error {
			return expectFile(filepath.Join(env.wsRoot(), "d/run.sh"), "#!/bin/sh\n", want)
		}
	}
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   requireTF111,
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{Config: cfg("keep_source_permissions = true"), Check: mode(0o755)},
			{
				Config: cfg(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_local_dir.d", plancheck.ResourceActionUpdate),
				}},
				Check: mode(0o644),
			},
		},
	})
}

// A host source of the wrong type keeps the Python SDK's message and says,
// in this provider's terms, which resource copies it, on every surface.
func TestAccHostSource_wrongTypeSaysWhichResource(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	file := env.writeSource("dir/f.txt", "f", 0o644)
	dir := filepath.Dir(file)
	step := func(body, want string) resource.TestStep {
		return resource.TestStep{Config: env.config(body), PlanOnly: true, ExpectError: errRe(want)}
	}
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   requireTF111,
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			step(fmt.Sprintf(`
resource "sandbox_file" "f" {
  workspace_id = sandbox_workspace.ws.id
  path         = "f"
  source       = %q
}`, dir), "failed to read local file artifact: "+dir),
			step(fmt.Sprintf(`
resource "sandbox_file" "f" {
  workspace_id = sandbox_workspace.ws.id
  path         = "f"
  source       = %q
}`, dir), "The source is a directory, and sandbox_file.source (or a local_file entry's src) copies one regular file: copy a directory with sandbox_local_dir"),
			step(fmt.Sprintf(`
resource "sandbox_local_dir" "d" {
  workspace_id = sandbox_workspace.ws.id
  path         = "d"
  source       = %q
}`, file), "The source is a regular file, and sandbox_local_dir.source (or a local_dir entry's src) copies a directory"),
			step(fmt.Sprintf(`
resource "sandbox_manifest" "m" {
  workspace_id  = sandbox_workspace.ws.id
  manifest_json = jsonencode({ entries = { f = { type = "local_file", src = %q } } })
}`, dir), "copy a directory with sandbox_local_dir"),
		},
	})
}

// A dir entry at "" is the root, as the Python SDK materialises it: its
// mode is applied to the workspace root, and destroying the manifest
// leaves the root (it belongs to the workspace).
func TestAccManifest_rootDirEntry(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	rootMode := func(want os.FileMode) resource.TestCheckFunc {
		return func(s *terraform.State) error {
			root, err := rootOf(s, "sandbox_workspace.ws")
			if err != nil {
				return err
			}
			if got, err := fileMode(root); err != nil || got != want {
				return fmt.Errorf("root mode %04o (%w), want %04o", got, err, want)
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   requireTF111,
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{
				Config: manifestConfig(env, `{"entries": {"": {"type": "dir", "permissions": {"owner": 7, "group": 5, "other": 0}}}}`),
				Check:  resource.ComposeTestCheckFunc(rootMode(0o750), resource.TestCheckResourceAttr("sandbox_manifest.m", "entries...permissions", "0750")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{Config: env.config(""), Check: rootMode(0o750)},
		},
	})
}
