package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

var hex40 = regexp.MustCompile(`^[0-9a-f]{40}$`)

// manifestGitConfig is a sandbox_manifest with one git_repo entry at
// vendor/demo, cloned from url with the token of var.token.
func manifestGitConfig(env *testEnv, url, ref, subpath string, version ...int) string {
	v := 1
	if len(version) > 0 {
		v = version[0]
	}
	sub := "null"
	if subpath != "" {
		sub = hclString(subpath)
	}
	return env.config(fmt.Sprintf(`
variable "token" {
  type      = string
  sensitive = true
  ephemeral = true
}
resource "sandbox_manifest" "m" {
  workspace_id  = sandbox_workspace.ws.id
  manifest_json = jsonencode({ entries = {
    "vendor/demo" = { type = "git_repo", host = "example.invalid", repo = "fixture/demo", ref = %q, subpath = %s }
    "notes.txt"   = { type = "file", content = "n\n" }
  } })
  git_urls               = { "vendor/demo" = %q }
  git_credentials_wo     = { "vendor/demo" = { token = var.token } }
  credentials_wo_version = %d
}
`, ref, sub, url, v))
}

// expectManifestCopy checks that vendor/demo holds exactly want.
func expectManifestCopy(env *testEnv, want map[string]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got, err := readTree(filepath.Join(env.wsRoot(), "vendor/demo"))
		if err != nil {
			return err
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("vendor/demo:\n got %v\nwant %v", got, want)
		}
		return nil
	}
}

// TestAccManifestGitRepo: a git_repo entry of a manifest is fetched from a
// server that requires the token given in git_credentials_wo; its commit is
// known at plan time, its files are in `files`, the token is nowhere in
// state; a plan that keeps the commit is empty; a moved branch is an update
// that re-copies; a file changed in the checkout is drift that the next
// apply puts back; an unknown ref fails the plan; destroy removes the copy.
func TestAccManifestGitRepo(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	f := newGitFixture(t)
	_, c2, _, files2 := demoRepo(f)
	token := leakSecret(t, "manifest-git-token")
	url := f.httpServer("x-access-token", token) + "fixture/demo.git"
	vars := config.Variables{"token": config.StringVariable(token)}
	commitIs := func(c string) plancheck.PlanCheck {
		return plancheck.ExpectKnownValue("sandbox_manifest.m", tfjsonpath.New("entries").AtMapKey("vendor/demo").AtMapKey("commit"), knownvalue.StringExact(c))
	}
	var c3 string
	var before time.Time
	files3 := map[string]string{}
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   requireTF111,
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{
				Config: manifestGitConfig(env, url, "v1", ""), ConfigVariables: vars,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{commitIs(c2)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					expectManifestCopy(env, files2),
					resource.TestCheckResourceAttr("sandbox_manifest.m", "files.vendor/demo/docs/guide.md", sha("guide v2\n")),
					resource.TestCheckResourceAttr("sandbox_manifest.m", "entries.vendor/demo.sha256", treeDigest(files2)),
					resource.TestCheckResourceAttr("sandbox_manifest.m", "entries.vendor/demo.permissions", "0755"),
					resource.TestCheckNoResourceAttr("sandbox_manifest.m", "entries.notes.txt.commit"),
					func(*terraform.State) error {
						return expectFile(filepath.Join(env.wsRoot(), "vendor/demo/bin/run.sh"), "#!/bin/sh\necho hi\n", 0o755)
					},
					noSecretInState(token),
				),
			},
			{
				// main moves past the tag: the plan resolves the new commit
				// and the apply copies its tree, subpath docs only.
				PreConfig: func() {
					c3 = f.commit("fixture/demo", map[string]string{"docs/guide.md": "guide v3\n"})
					files3["guide.md"], files3["ref/api.md"] = "guide v3\n", "api\n"
				},
				Config: manifestGitConfig(env, url, "main", "docs"), ConfigVariables: vars,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("sandbox_manifest.m", plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue("sandbox_manifest.m", tfjsonpath.New("entries").AtMapKey("vendor/demo").AtMapKey("commit"), knownvalue.StringRegexp(hex40)),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					expectManifestCopy(env, files3),
					func(s *terraform.State) error {
						return resource.TestCheckResourceAttr("sandbox_manifest.m", "entries.vendor/demo.commit", c3)(s)
					},
				),
			},
			{
				// Drift: a file of the checkout changed in the workspace.
				PreConfig: func() {
					must(t, os.WriteFile(filepath.Join(env.wsRoot(), "vendor/demo/guide.md"), []byte("edited\n"), 0o644))
				},
				Config: manifestGitConfig(env, url, "main", "docs"), ConfigVariables: vars,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("sandbox_manifest.m", plancheck.ResourceActionUpdate)},
				},
				Check: expectManifestCopy(env, files3),
			},
			{
				// A new credentials_wo_version applies again with the
				// credentials, rewriting nothing that is unchanged.
				PreConfig: func() {
					fi, err := os.Stat(filepath.Join(env.wsRoot(), "vendor/demo/ref/api.md"))
					must(t, err)
					before = fi.ModTime()
				},
				Config: manifestGitConfig(env, url, "main", "docs", 2), ConfigVariables: vars,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("sandbox_manifest.m", plancheck.ResourceActionUpdate)},
				},
				Check: resource.ComposeTestCheckFunc(expectManifestCopy(env, files3), func(*terraform.State) error {
					fi, err := os.Stat(filepath.Join(env.wsRoot(), "vendor/demo/ref/api.md"))
					if err != nil {
						return err
					}
					if !fi.ModTime().Equal(before) {
						return fmt.Errorf("ref/api.md was rewritten: modified %v, before %v", fi.ModTime(), before)
					}
					return nil
				}),
			},
			{
				Config: manifestGitConfig(env, url, "no-such-branch", ""), ConfigVariables: vars,
				PlanOnly: true, ExpectError: errRe(`no branch or tag "no-such-branch"`),
			},
			{
				// The manifest alone is destroyed: the checkout goes, the
				// workspace stays.
				Config: env.config(""),
				Check: func(*terraform.State) error {
					for _, p := range []string{"vendor/demo", "notes.txt"} {
						if _, err := os.Lstat(filepath.Join(env.wsRoot(), p)); !os.IsNotExist(err) {
							return fmt.Errorf("%s survived the manifest's destroy (%w)", p, err)
						}
					}
					return nil
				},
			},
		},
	})
}

// TestAccManifestGitRepo_refusals: a git_urls file:// URL outside the
// working directory and every grant fails the plan on that git_urls key
// (outside_base_dir), a key naming no git_repo entry fails on its key, a
// URL carrying a password fails on its key, and conflicting credentials
// fail on the credential.
func TestAccManifestGitRepo_refusals(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	f := newGitFixture(t)
	f.create("private")
	f.commit("private", map[string]string{"secret.txt": "not for the agent\n"})
	step := func(extra, want string) resource.TestStep {
		return resource.TestStep{Config: env.config(fmt.Sprintf(`
resource "sandbox_manifest" "m" {
  workspace_id  = sandbox_workspace.ws.id
  manifest_json = jsonencode({ entries = { r = { type = "git_repo", repo = "o/private", ref = "main" } } })
  %s
}`, extra)), PlanOnly: true, ExpectError: regexp.MustCompile(want)}
	}
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   requireTF111,
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			step(fmt.Sprintf(`git_urls = { r = %q }`, "file://"+filepath.Join(f.root, "private.git")), `git_urls = \{ r = [\s\S]*outside_base_dir`),
			step(`git_urls = { other = "https://example.invalid/o/r.git" }`, `git_urls = \{ other = [\s\S]*"other" names no git_repo entry`),
			step(`git_urls = { r = "https://u:pw@example.invalid/o/r.git" }`, `git_urls = \{ r = [\s\S]*must not carry a password`),
			step(`git_credentials_wo = { r = { token = "t", password = "p" } }`, `token cannot be combined with username,\s+password`),
		},
	})
}

// TestAccManifestGitRepo_unknownURL: a git_urls value known only after
// apply leaves the plan's entries unknown; the apply resolves and copies.
func TestAccManifestGitRepo_unknownURL(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	f := newGitFixture(t)
	_, c2, _, files2 := demoRepo(f)
	url := f.daemon() + "fixture/demo.git"
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   requireTF111,
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: env.config(fmt.Sprintf(`
resource "terraform_data" "url" {
  input = %q
}
resource "sandbox_manifest" "m" {
  workspace_id  = sandbox_workspace.ws.id
  manifest_json = jsonencode({ entries = { "vendor/demo" = { type = "git_repo", repo = "fixture/demo", ref = "v1" } } })
  git_urls      = { "vendor/demo" = terraform_data.url.output }
}`, url)),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue("sandbox_manifest.m", tfjsonpath.New("entries")),
			}},
			Check: resource.ComposeTestCheckFunc(
				expectManifestCopy(env, files2),
				resource.TestCheckResourceAttr("sandbox_manifest.m", "entries.vendor/demo.commit", c2),
			),
		}},
	})
}
