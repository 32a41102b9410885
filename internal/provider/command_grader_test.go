package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// graderBody is a grader that writes its score and exits 1 (a failed
// check), declared with expect_exit_codes = [0, 1], and an export of the
// score that depends on it.
func graderBody(dest string) string {
	return fmt.Sprintf(`
resource "sandbox_command" "grade" {
  workspace_id      = sandbox_workspace.ws.id
  shell             = "mkdir -p results && echo '{\"passed\":3,\"failed\":1}' > results/score.json && echo '1 check failed' && echo details >&2 && exit 1"
  expect_exit_codes = [0, 1]
}

resource "sandbox_export" "results" {
  workspace_id = sandbox_workspace.ws.id
  paths        = ["results/score.json"]
  destination  = %q
  triggers     = { run = sandbox_command.grade.id }
}

output "grade" {
  value = sandbox_command.grade.exit_code
}
`, dest)
}

// graderChecks: the apply recorded exit 1 and the output, and the export
// that depended on the failed grader holds the score.
func graderChecks(dest string) (resource.TestCheckFunc, []statecheck.StateCheck) {
	return func(*terraform.State) error {
			b, err := os.ReadFile(filepath.Join(dest, "results/score.json"))
			if err != nil {
				return fmt.Errorf("the export of the grader's results: %w", err)
			}
			if string(b) != "{\"passed\":3,\"failed\":1}\n" {
				return fmt.Errorf("exported score.json holds %q", b)
			}
			return nil
		}, []statecheck.StateCheck{
			statecheck.ExpectKnownValue("sandbox_command.grade", tfjsonpath.New("exit_code"), knownvalue.Int64Exact(1)),
			statecheck.ExpectKnownValue("sandbox_command.grade", tfjsonpath.New("stdout"), knownvalue.StringExact("1 check failed\n")),
			statecheck.ExpectKnownValue("sandbox_command.grade", tfjsonpath.New("stderr"), knownvalue.StringExact("details\n")),
			statecheck.ExpectKnownOutputValue("grade", knownvalue.Int64Exact(1)),
		}
}

// errSeq matches each text in turn, anything between them.
func errSeq(texts ...string) *regexp.Regexp {
	parts := make([]string, len(texts))
	for i, t := range texts {
		parts[i] = errRe(t).String()
	}
	return regexp.MustCompile(`(?s)` + strings.Join(parts, `.*`))
}

// graderSteps run the grader scenario in the workspace config makes, then
// the failures: an exit code outside the list, both exit-code attributes,
// a missing working_dir, an export glob that matches nothing.
func graderSteps(t *testing.T, config func(body string) string) []resource.TestStep {
	dest := filepath.Join(t.TempDir(), "out")
	check, stateChecks := graderChecks(dest)
	with := func(extra string) string { return config(graderBody(dest) + extra) }
	return []resource.TestStep{
		{Config: with(""), Check: check, ConfigStateChecks: stateChecks},
		{
			Config: with(`
resource "sandbox_command" "strict" {
  workspace_id      = sandbox_workspace.ws.id
  shell             = "echo two failed >&2; exit 2"
  expect_exit_codes = [0, 1]
}
`),
			ExpectError: errSeq("Command failed", "exited with code 2 (expected 0 or 1)", "two failed", "Add the code to expect_exit_codes"),
		},
		{
			Config: with(`
resource "sandbox_command" "both" {
  workspace_id             = sandbox_workspace.ws.id
  shell                    = "true"
  expect_exit_codes        = [0, 1]
  allow_non_zero_exit_code = true
}
`),
			PlanOnly:    true,
			ExpectError: errRe("cannot be configured together"),
		},
		{
			Config: with(`
resource "sandbox_command" "lost" {
  workspace_id      = sandbox_workspace.ws.id
  shell             = "true"
  working_dir       = "nope/x"
  expect_exit_codes = [0, 1, 126, 127]
}
`),
			ExpectError: errSeq("Command could not start", `working_dir "nope/x" does not exist in the workspace`),
		},
		{
			Config: with(`
resource "sandbox_export" "none" {
  workspace_id = sandbox_workspace.ws.id
  paths        = ["results/verdict.json"]
  destination  = "${path.root}/none"
  triggers     = { run = sandbox_command.grade.id }
}
`),
			ExpectError: errSeq("Nothing to export", `paths glob "results/verdict.json" matched no file; directory "results" holds: "score.json"`),
		},
	}
}

func TestAccCommand_grader(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps:                    graderSteps(t, env.config),
	})
}

func TestAccDockerCommand_grader(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             env.checkGone,
		Steps: append(graderSteps(t, func(body string) string {
			return env.config(`users = [{ name = "agent" }]`, body)
		}), resource.TestStep{
			// The grader ran in the container.
			Config: env.config(`users = [{ name = "agent" }]`, ""),
			Check:  env.expectSh("cat /workspace/results/score.json", `{"passed":3,"failed":1}`),
		}, resource.TestStep{
			// An unknown user fails the plan once the workspace exists (its
			// accounts are known then; the plan of a command created with
			// its workspace is checked again during the apply, before it
			// runs), naming the user, never as an exit code.
			Config: env.config(`users = [{ name = "agent" }]`, `
resource "sandbox_command" "who" {
  workspace_id      = sandbox_workspace.ws.id
  shell             = "id -un"
  user              = "agnet"
  expect_exit_codes = [0, 126]
}
`),
			PlanOnly:    true,
			ExpectError: errSeq("Unknown user agnet", `"agnet" is neither one of the workspace's users`),
		}),
	})
}

// A timeout kills every process of the command, in new sessions too, and
// says which.
func TestAccDockerCommand_timeoutNamesKilled(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{Config: env.config("", "")},
			{
				Config: env.config("", `
resource "sandbox_command" "slow" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "setsid sleep 41 & sleep 42"
  timeout      = 1
}
`),
				ExpectError: regexp.MustCompile(`(?s)did\s+not\s+finish\s+within\s+1\s+seconds.*every\s+process\s+it\s+started\s+` +
					`was\s+killed:\s+\d+\s+processes\s+\(\d+\s+\S+,\s+\d+\s+sleep`),
			},
			{
				Config: env.config("", ""),
				Check:  env.expectSh("ps -o args >/dev/null && { ps -o args | grep -c '[s]leep 4' || true; }", "0"),
			},
		},
	})
}

// In a pod, commands with a user, a working directory or an environment
// run through the file helper's run operation, which reports what kept a
// command from starting as the Docker runtime does; an unknown user cannot
// be known at plan (reading the pod's accounts needs an exec), so the
// apply names it.
func TestAccKubernetesCommand_grader(t *testing.T) {
	env := newKubeEnv(t)
	config := func(body string) string { return env.config("", "", body) }
	steps := append(graderSteps(t, config),
		resource.TestStep{
			Config: config(`
resource "sandbox_command" "who" {
  workspace_id      = sandbox_workspace.ws.id
  shell             = "id -un"
  user              = "agnet"
  expect_exit_codes = [0, 126]
}
`),
			ExpectError: errSeq("Command could not start", `user "agnet" is not one of the workspace's users`),
		},
		resource.TestStep{
			Config: config(`
resource "sandbox_command" "slow" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "setsid sleep 41 & sleep 42"
  timeout      = 1
}
`),
			ExpectError: regexp.MustCompile(`(?s)did\s+not\s+finish\s+within\s+1\s+seconds.*every\s+process\s+it\s+started\s+` +
				`was\s+killed:\s+\d+\s+processes\s+\(\d+\s+\S+,\s+\d+\s+sleep`),
		},
		resource.TestStep{
			Config: config(""),
			Check: resource.ComposeTestCheckFunc(
				env.expectSh("cat /workspace/results/score.json", `{"passed":3,"failed":1}`),
				env.expectSh("ps -o args >/dev/null && { ps -o args | grep -c '[s]leep 4' || true; }", "0"),
			),
		})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             env.checkGone,
		Steps:                    steps,
	})
}

// The data source (and the ephemeral resource, which shares its schema)
// takes expect_exit_codes too.
func TestAccExec_expectExitCodes(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: env.config(`
data "sandbox_exec" "check" {
  workspace_id      = sandbox_workspace.ws.id
  shell             = "echo partial; exit 3"
  expect_exit_codes = [3]
}
`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.sandbox_exec.check", tfjsonpath.New("exit_code"), knownvalue.Int64Exact(3)),
					statecheck.ExpectKnownValue("data.sandbox_exec.check", tfjsonpath.New("stdout"), knownvalue.StringExact("partial\n")),
				},
			},
			{
				Config: env.config(`
data "sandbox_exec" "check" {
  workspace_id      = sandbox_workspace.ws.id
  shell             = "exit 0"
  expect_exit_codes = [3]
}
`),
				ExpectError: errRe("exited with code 0 (expected 3)"),
			},
		},
	})
}
