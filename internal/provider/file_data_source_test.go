package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// fileDataBody has a command write a text result, a binary file and a
// symlink to /etc/passwd, and reads them back with data.sandbox_file.
const fileDataBody = `
resource "sandbox_command" "results" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "mkdir -p out && printf 'score: 42\\n' > out/result.txt && printf '\\377\\376' > out/blob.bin && ln -s /etc/passwd out/passwd"
}

data "sandbox_file" "result" {
  workspace_id = sandbox_workspace.ws.id
  path         = "out/result.txt"
  depends_on   = [sandbox_command.results]
}

data "sandbox_file" "blob" {
  workspace_id = sandbox_workspace.ws.id
  path         = "out/blob.bin"
  depends_on   = [sandbox_command.results]
}

data "sandbox_file" "missing" {
  workspace_id = sandbox_workspace.ws.id
  path         = "out/none.txt"
  depends_on   = [sandbox_command.results]
}
`

const fileDataSymlink = `
data "sandbox_file" "passwd" {
  workspace_id = sandbox_workspace.ws.id
  path         = "out/passwd"
  depends_on   = [sandbox_command.results]
}
`

const fileDataTooLarge = `
data "sandbox_file" "small" {
  workspace_id = sandbox_workspace.ws.id
  path         = "out/result.txt"
  max_size     = 4
  depends_on   = [sandbox_command.results]
}
`

const fileDataLeak = `
output "leak" {
  value = data.sandbox_file.result.content
}
`

func fileDataSteps(config func(string) string, check resource.TestCheckFunc) []resource.TestStep {
	return []resource.TestStep{
		{
			Config: config(fileDataBody), Check: check,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.sandbox_file.result", tfjsonpath.New("content"), knownvalue.StringExact("score: 42\n")),
				statecheck.ExpectKnownValue("data.sandbox_file.result", tfjsonpath.New("sha256"), knownvalue.StringExact(sha("score: 42\n"))),
				statecheck.ExpectKnownValue("data.sandbox_file.result", tfjsonpath.New("size"), knownvalue.Int64Exact(10)),
				statecheck.ExpectKnownValue("data.sandbox_file.blob", tfjsonpath.New("content"), knownvalue.Null()),
				statecheck.ExpectKnownValue("data.sandbox_file.blob", tfjsonpath.New("content_base64"), knownvalue.StringExact("//4=")),
				statecheck.ExpectKnownValue("data.sandbox_file.missing", tfjsonpath.New("exists"), knownvalue.Bool(false)),
				statecheck.ExpectKnownValue("data.sandbox_file.missing", tfjsonpath.New("content_base64"), knownvalue.Null()),
			},
		},
		{Config: config(fileDataBody + fileDataSymlink), ExpectError: regexp.MustCompile(`(?i)symbolic link|symlink|too many levels|not a regular`)},
		{Config: config(fileDataBody + fileDataTooLarge), ExpectError: regexp.MustCompile(`File larger than max_size`)},
		// A workspace file may hold a secret: its content is sensitive, so
		// an output of it must say so.
		{Config: config(fileDataBody + fileDataLeak), ExpectError: regexp.MustCompile(`(?s)Output refers to sensitive values`)},
		// The last configuration is what the test destroys with: a valid one.
		{Config: config(fileDataBody)},
	}
}

func TestAccFileDataSource_local(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: protoV6Factories, Steps: fileDataSteps(env.config,
		func(*terraform.State) error {
			b, err := os.ReadFile(filepath.Join(env.wsRoot(), "out/result.txt"))
			if string(b) != "score: 42\n" {
				return fmt.Errorf("the command wrote %q (%w)", b, err)
			}
			return nil
		})})
}

func TestAccFileDataSource_docker(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: protoV6Factories, CheckDestroy: env.checkGone,
		Steps: fileDataSteps(func(body string) string { return env.config("", body) },
			env.expectSh("cat /workspace/out/result.txt", "score: 42"))})
}
