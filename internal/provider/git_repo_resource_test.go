package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// gitRepoBody is a sandbox_git_repo "r" at path "repo"; extra is more HCL
// inside the block.
func gitRepoBody(url, ref, extra string) string {
	return fmt.Sprintf(`
resource "sandbox_git_repo" "r" {
  workspace_id = sandbox_workspace.ws.id
  path         = "repo"
  repo         = "fixture/demo"
  url          = %q
  ref          = %q
  %s
}
`, url, ref, extra)
}

// contentBytes is the sum of the lengths of the contents in files.
func contentBytes(files map[string]string) int {
	n := 0
	for _, c := range files {
		n += len(c)
	}
	return n
}

// readTree reads every file below root: path → content.
func readTree(root string) (map[string]string, error) {
	got := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		got[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	return got, err
}

// expectCopy checks that the workspace's repo directory holds exactly want.
func expectCopy(env *testEnv, want map[string]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got, err := readTree(filepath.Join(env.wsRoot(), "repo"))
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(got, want) {
			return fmt.Errorf("workspace copy:\n got %v\nwant %v", got, want)
		}
		return nil
	}
}

// demoRepo builds fixture/demo: commit one (c1), then c2 tagged v1 at the
// tip of main. It returns the files of each commit and their ids.
func demoRepo(f *gitFixture) (c1, c2 string, files1, files2 map[string]string) {
	f.create("fixture/demo")
	files1 = map[string]string{"README.md": "# demo\n", "docs/guide.md": "guide v1\n", "bin/run.sh": "+x:#!/bin/sh\necho hi\n"}
	c1 = f.commit("fixture/demo", files1)
	c2 = f.commit("fixture/demo", map[string]string{"docs/guide.md": "guide v2\n", "docs/ref/api.md": "api\n"})
	f.tag("fixture/demo", "v1")
	files2 = map[string]string{"README.md": "# demo\n", "docs/guide.md": "guide v2\n", "docs/ref/api.md": "api\n", "bin/run.sh": "#!/bin/sh\necho hi\n"}
	files1["bin/run.sh"] = "#!/bin/sh\necho hi\n"
	return c1, c2, files1, files2
}

func subtree(files map[string]string, dir string) map[string]string {
	out := map[string]string{}
	for p, c := range files {
		if rest, ok := strings.CutPrefix(p, dir+"/"); ok {
			out[rest] = c
		}
	}
	return out
}

func TestAccGitRepo_refs(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	f := newGitFixture(t)
	c1, c2, files1, files2 := demoRepo(f)
	url := f.daemon() + "fixture/demo.git"
	commitIs := func(c string) plancheck.PlanCheck {
		return plancheck.ExpectKnownValue("sandbox_git_repo.r", tfjsonpath.New("commit"), knownvalue.StringExact(c))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				// An annotated tag, resolved to its commit at plan time.
				Config:           env.config(gitRepoBody(url, "v1", "record_files = true")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{commitIs(c2)}},
				Check: resource.ComposeTestCheckFunc(
					expectCopy(env, files2),
					resource.TestCheckResourceAttr("sandbox_git_repo.r", "file_count", "4"),
					resource.TestCheckResourceAttr("sandbox_git_repo.r", "file_permissions.bin/run.sh", "0755"),
					resource.TestCheckResourceAttr("sandbox_git_repo.r", "file_permissions.README.md", "0644"),
					resource.TestCheckResourceAttr("sandbox_git_repo.r", "files.docs/guide.md", sha("guide v2\n")),
					resource.TestCheckResourceAttr("sandbox_git_repo.r", "tree_sha256", treeDigest(files2)),
					resource.TestCheckResourceAttr("sandbox_git_repo.r", "total_bytes", strconv.Itoa(contentBytes(files2))),
				),
			},
			{
				// A branch with a subpath: only docs/ is copied, files the
				// tag had outside it are removed.
				Config:           env.config(gitRepoBody(url, "main", `subpath = "./docs/"`)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{commitIs(c2)}},
				Check:            expectCopy(env, subtree(files2, "docs")),
			},
			{
				// A full commit id, used as is; the server does not serve
				// it shallow, so the whole history is fetched.
				Config:           env.config(gitRepoBody(url, c1, "")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{commitIs(c1)}},
				Check:            expectCopy(env, files1),
			},
			{
				// An abbreviated commit no branch or tag points to: unknown
				// at plan time, resolved by the apply; the next plan is empty.
				Config: env.config(gitRepoBody(url, strings.ToUpper(c1[:9]), `subpath = "docs"`)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectUnknownValue("sandbox_git_repo.r", tfjsonpath.New("commit")),
				}},
				Check: resource.ComposeTestCheckFunc(
					expectCopy(env, subtree(files1, "docs")),
					resource.TestCheckResourceAttr("sandbox_git_repo.r", "commit", c1),
				),
			},
		},
	})
}

func TestAccGitRepo_branchMoved(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	f := newGitFixture(t)
	_, _, _, files2 := demoRepo(f)
	url := f.daemon() + "fixture/demo.git"
	var c3 string
	moved := map[string]string{}
	for p, c := range files2 {
		moved[p] = c
	}
	moved["docs/new.md"] = "new\n"
	delete(moved, "README.md")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: env.config(gitRepoBody(url, "main", "")),
				Check:  expectCopy(env, files2),
			},
			{
				// Nothing changed: the plan is empty.
				Config:   env.config(gitRepoBody(url, "main", "")),
				PlanOnly: true,
			},
			{
				PreConfig: func() { c3 = f.commit("fixture/demo", map[string]string{"docs/new.md": "new\n", "README.md": ""}) },
				Config:    env.config(gitRepoBody(url, "main", "")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_git_repo.r", plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeTestCheckFunc(
					expectCopy(env, moved),
					func(s *terraform.State) error {
						if got := s.RootModule().Resources["sandbox_git_repo.r"].Primary.Attributes["commit"]; got != c3 {
							return fmt.Errorf("commit %s, want %s", got, c3)
						}
						return nil
					},
				),
			},
			{
				// Drift in the workspace shows in the plan and is repaired.
				PreConfig: func() {
					must(t, os.WriteFile(filepath.Join(env.wsRoot(), "repo/docs/new.md"), []byte("tampered"), 0o644))
				},
				Config: env.config(gitRepoBody(url, "main", "")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_git_repo.r", plancheck.ResourceActionUpdate),
				}},
				Check: expectCopy(env, moved),
			},
			{
				// Import reads the copy back; repo and ref come from configuration.
				ResourceName:      "sandbox_git_repo.r",
				ImportState:       true,
				ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"host", "repo", "ref", "url", "subpath", "commit", "manifest_entry",
					"credentials_wo_version", "changes"},
			},
		},
	})
}

func TestAccGitRepo_errors(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	f := newGitFixture(t)
	demoRepo(f)
	url := f.daemon() + "fixture/demo.git"
	// Nothing listens on this URL: a subpath error proves no network call.
	dead := fmt.Sprintf("git://127.0.0.1:%d/fixture/demo.git", freePort(t))
	steps := []resource.TestStep{
		{
			Config:      env.config(gitRepoBody(url, "no-such-branch", "")),
			PlanOnly:    true,
			ExpectError: loose(`Cannot resolve ref no-such-branch`, `ref = "no-such-branch"`, `no branch or tag "no-such-branch" in git://127.0.0.1:`, `unknown ref`),
		},
		{
			Config:      env.config(gitRepoBody(dead, "main", "")),
			PlanOnly:    true,
			ExpectError: loose(`url = "`+dead+`"`, `listing the refs of `+dead+`: repository unreachable`),
		},
		{
			Config:      env.config(gitRepoBody(url, "main", `subpath = "nope"`)),
			ExpectError: loose(`subpath = "nope"`, `subpath "nope" is not a directory in commit`, `of `+url+`: subpath missing in the repository`),
		},
	}
	steps = append(steps,
		resource.TestStep{
			Config:      env.config(gitRepoBody("https://user:hunter2@127.0.0.1/x.git", "main", "")),
			PlanOnly:    true,
			ExpectError: loose(`Invalid url`, `url must not carry a password`),
		},
		resource.TestStep{
			Config:      env.config(gitRepoBody(url, "main", `token_wo = "t"`+"\n"+`password_wo = "p"`)),
			PlanOnly:    true,
			ExpectError: loose(`Conflicting credentials`, `token_wo cannot be combined`),
		},
	)
	for sub, reason := range map[string]string{"   ": "empty", "/docs": "absolute", `C:/repo`: "windows_path", `docs\x`: "windows_path", "a/../b": "parent_traversal"} {
		steps = append(steps, resource.TestStep{
			Config:      env.config(gitRepoBody(dead, "main", fmt.Sprintf("subpath = %q", sub))),
			PlanOnly:    true,
			ExpectError: loose(`git repo subpath must be a relative path inside the repository: `+sub, `reason: `+reason),
		})
	}
	// A valid last configuration, for the destroy after the test.
	steps = append(steps, resource.TestStep{Config: env.config("")})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps:                    steps,
	})
}

// loose matches the parts in order in Terraform's output, which wraps
// lines: any run of spaces in a part matches any whitespace.
func loose(parts ...string) *regexp.Regexp {
	quoted := make([]string, 0, len(parts))
	for _, p := range parts {
		quoted = append(quoted, strings.Join(strings.Fields(regexp.QuoteMeta(p)), `\s+`))
	}
	return regexp.MustCompile(`(?s)` + strings.Join(quoted, `.*`))
}
