package provider

import (
	"fmt"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
)

// Removing a copied tree of thousands of files from a container takes a
// bounded number of file helper execs (it used to take one per file), and
// removes only the copy: a file written there by others stays.
func TestAccDockerLocalDir_removalIsOneRoundTrip(t *testing.T) {
	t.Parallel()
	const files = 3000
	env := newDockerEnv(t)
	for i := range files {
		env.writeSource(fmt.Sprintf("big/d%02d/f%04d.txt", i%30, i), strconv.Itoa(i), 0o644)
	}
	tree := fmt.Sprintf(`
resource "sandbox_local_dir" "big" {
  workspace_id = sandbox_workspace.ws.id
  path         = "big"
  source       = %q
}
`, filepath.Join(env.src, "big"))
	var (
		before    int64
		container string
	)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: env.config("", tree),
				Check: resource.ComposeTestCheckFunc(
					env.expectSh("find /workspace/big -type f | wc -l", strconv.Itoa(files)),
					func(s *terraform.State) error {
						container = env.container(s)
						before = docker.HelperCallsTo(container)
						return nil
					},
				),
			},
			{
				PreConfig: func() {
					_, err := sh(container, "echo theirs > /workspace/big/d07/foreign.txt")
					must(t, err)
				},
				Config: env.config("", ""),
				Check: resource.ComposeTestCheckFunc(
					env.expectSh("cd /workspace && find . -mindepth 1 | sort", "./big\n./big/d07\n./big/d07/foreign.txt"),
					func(*terraform.State) error {
						// The post-apply plan of step 1, this step's refresh and plan,
						// and the removal: a few execs, whatever the number of files.
						n := docker.HelperCallsTo(container) - before
						t.Logf("removing a %d-file tree: %d file helper execs", files, n)
						if n > 20 {
							return fmt.Errorf("removing a %d-file tree took %d file helper execs", files, n)
						}
						return nil
					},
				),
			},
		},
		CheckDestroy: env.checkGone,
	})
}
