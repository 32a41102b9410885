package provider

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// noSecretInState fails when any attribute of any resource holds secret.
// The state a check sees is what `terraform show -json` prints.
func noSecretInState(secrets ...string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		for name, r := range s.RootModule().Resources {
			for k, v := range r.Primary.Attributes {
				for _, secret := range secrets {
					if bytes.Contains([]byte(v), []byte(secret)) {
						return fmt.Errorf("%s.%s holds a credential", name, k)
					}
				}
			}
		}
		return nil
	}
}

func TestAccGitRepo_privateHTTP(t *testing.T) {
	env := newTestEnv(t)
	f := newGitFixture(t)
	f.create("team/private")
	f.commit("team/private", map[string]string{"tool.py": "print('private')\n"})
	const user, secret, wrong = "agent", "pw-7f3a9c1e-secret", "pw-wrong-5b2d"
	url := f.httpServer(user, secret) + "team/private.git"
	logPath := filepath.Join(t.TempDir(), "trace.log")
	t.Setenv("TF_LOG", "trace")
	t.Setenv("TF_LOG_PATH", logPath)
	// The credentials come from the environment through ephemeral
	// variables, so that the configuration the test harness logs holds none.
	t.Setenv("TF_VAR_git_password", secret)
	t.Setenv("TF_VAR_git_wrong_password", wrong)
	vars := `
variable "git_password" {
  type      = string
  sensitive = true
  ephemeral = true
}
variable "git_wrong_password" {
  type      = string
  sensitive = true
  ephemeral = true
}
`
	creds := func(pw string) string {
		return fmt.Sprintf("username_wo = %q\n  password_wo = var.%s\n  credentials_wo_version = 1", user, pw)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				// Without credentials the server refuses: an authentication error.
				Config:      env.config(gitRepoBody(url, "main", "")),
				PlanOnly:    true,
				ExpectError: loose(`url = "`+url+`"`, `listing the refs of `+url+`: authentication failed`),
			},
			{
				Config:      env.config(vars + gitRepoBody(url, "main", creds("git_wrong_password"))),
				PlanOnly:    true,
				ExpectError: loose(`password_wo`, `authentication failed`),
			},
			{
				Config: env.config(vars + gitRepoBody(url, "main", creds("git_password"))),
				Check: resource.ComposeTestCheckFunc(
					expectCopy(env, map[string]string{"tool.py": "print('private')\n"}),
					noSecretInState(secret, wrong),
					resource.TestCheckNoResourceAttr("sandbox_git_repo.r", "password_wo"),
				),
			},
			{
				// A new commit is fetched with the same credentials.
				PreConfig: func() { f.commit("team/private", map[string]string{"tool.py": "print('v2')\n"}) },
				Config:    env.config(vars + gitRepoBody(url, "main", creds("git_password"))),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_git_repo.r", plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeTestCheckFunc(
					expectCopy(env, map[string]string{"tool.py": "print('v2')\n"}),
					noSecretInState(secret, wrong),
				),
			},
		},
	})
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatalf("no trace log: %v", err)
	}
	if !bytes.Contains(log, []byte("sandbox_git_repo")) {
		t.Fatalf("the trace log at %s does not mention the resource; logging was not on", logPath)
	}
	for _, s := range []string{secret, wrong} {
		if bytes.Contains(log, []byte(s)) {
			t.Errorf("the TF_LOG=trace output holds a credential")
		}
	}
}

func TestAccGitRepoDocker_tagAndBranchMoved(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	f := newGitFixture(t)
	demoRepo(f)
	url := f.daemon() + "fixture/demo.git"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{
				Config: env.config("", gitRepoBody(url, "v1", "")),
				Check: resource.ComposeTestCheckFunc(
					env.expectSh("cd /workspace/repo && find . -type f | sort && cat docs/guide.md && stat -c '%a' bin/run.sh README.md",
						"./README.md\n./bin/run.sh\n./docs/guide.md\n./docs/ref/api.md\nguide v2\n755\n644"),
					resource.TestCheckResourceAttr("sandbox_git_repo.r", "file_count", "4"),
				),
			},
			{
				Config: env.config("", gitRepoBody(url, "main", `subpath = "docs"`)),
				Check: env.expectSh("cd /workspace/repo && find . -type f | sort",
					"./guide.md\n./ref/api.md"),
			},
			{
				PreConfig: func() {
					f.commit("fixture/demo", map[string]string{"docs/guide.md": "guide v3\n", "docs/ref/api.md": ""})
				},
				Config: env.config("", gitRepoBody(url, "main", `subpath = "docs"`)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_git_repo.r", plancheck.ResourceActionUpdate),
				}},
				Check: env.expectSh("cd /workspace/repo && find . -type f | sort && cat guide.md", "./guide.md\nguide v3"),
			},
		},
	})
}
