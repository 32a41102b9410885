package provider

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
)

// listing describes every path below /workspace in a container: type and
// mode, and the SHA-256 of files, one line per path, sorted.
const listing = `cd /workspace && find . -mindepth 1 | sort | while read -r p; do
  if [ -f "$p" ]; then echo "$p $(stat -c %A "$p") $(sha256sum < "$p" | cut -d' ' -f1)"; else echo "$p $(stat -c %A "$p")"; fi
done`

// The manifest round trip on Docker: the JSON rendered from the individual
// resources in one container, applied by sandbox_manifest to a second
// container, yields the same paths, modes and checksums; drift in the
// second is repaired.
func TestAccDockerManifestRoundTrip(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	env.writeSource("tool.sh", "#!/bin/sh\necho hi\n", 0o755)
	env.writeSource("skills/a.md", "a\n", 0o644)
	env.writeSource("skills/deep/b.md", "b\n", 0o600)
	cfg := env.config("", fmt.Sprintf(`
resource "sandbox_workspace" "ws2" {
  docker {
    image       = %q
    pull_policy = "never"
  }
}
resource "sandbox_dir" "docs" {
  workspace_id = sandbox_workspace.ws.id
  path         = "docs"
  permissions  = "0750"
}
resource "sandbox_file" "readme" {
  workspace_id = sandbox_workspace.ws.id
  path         = "${sandbox_dir.docs.path}/readme.md"
  content      = "# héllo\n"
  permissions  = "-rw-r-----"
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
    (sandbox_dir.docs.path)         = sandbox_dir.docs.manifest_entry
    (sandbox_file.readme.path)      = sandbox_file.readme.manifest_entry
    (sandbox_file.tool.path)        = sandbox_file.tool.manifest_entry
    (sandbox_local_dir.skills.path) = sandbox_local_dir.skills.manifest_entry
  }
}
resource "sandbox_manifest" "m" {
  workspace_id  = sandbox_workspace.ws2.id
  manifest_json = data.sandbox_manifest.m.json
}
`, dockertest.Image, filepath.Join(env.src, "tool.sh"), filepath.Join(env.src, "skills")))
	container2 := func(s *terraform.State) string {
		id := s.RootModule().Resources["sandbox_workspace.ws2"].Primary.Attributes["container_id"]
		env.seen[id] = true
		return id
	}
	same := func(s *terraform.State) error {
		a, err := sh(env.container(s), listing)
		if err != nil {
			return err
		}
		b, err := sh(container2(s), listing)
		if err != nil {
			return err
		}
		if n := strings.Count(a, "\n") + 1; n != 8 {
			return fmt.Errorf("the individual resources wrote %d paths, want 8:\n%s", n, a)
		}
		if a != b {
			return fmt.Errorf("containers differ:\nresources:\n%s\nmanifest:\n%s", a, b)
		}
		return nil
	}
	var second string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: resource.ComposeTestCheckFunc(same, func(s *terraform.State) error {
					second = container2(s)
					return nil
				}),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// Drift in the manifest's container is planned and repaired.
				PreConfig: func() {
					_, err := sh(second, `cd /workspace && echo tampered > docs/readme.md && chmod 777 bin/tool.sh && rm -r skills/deep`)
					must(t, err)
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("sandbox_manifest.m", plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: same,
			},
		},
	})
}
