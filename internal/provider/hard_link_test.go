package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// TestAccHostSource_hardLinkRefused links a file that lies outside the
// working directory and outside every grant into a granted source tree:
// sandbox_local_dir and sandbox_file refuse it at plan time, naming the
// file and the reason, and copy nothing; with allow_hard_links = true the
// same configuration copies it.
func TestAccHostSource_hardLinkRefused(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("not granted\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env.writeSource("tree/plain.txt", "plain\n", 0o644)
	link := filepath.Join(env.src, "tree", "sub", "link.txt")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(outside, link); err != nil {
		t.Fatalf("cannot create a hard link on this file system: %v", err)
	}
	body := fmt.Sprintf(`
resource "sandbox_local_dir" "d" {
  workspace_id = sandbox_workspace.ws.id
  path         = "tree"
  source       = %q
}

resource "sandbox_file" "f" {
  workspace_id = sandbox_workspace.ws.id
  path         = "link.txt"
  source       = %q
}
`, filepath.Join(env.src, "tree"), link)
	allowed := strings.Replace(env.config(body), `provider "sandbox" {`, `provider "sandbox" {
  allow_hard_links = true`, 1)
	noCopy := func(*terraform.State) error {
		if _, err := os.Stat(env.base); err == nil {
			if entries, _ := os.ReadDir(env.base); len(entries) > 0 {
				return fmt.Errorf("a refused plan created %v", entries)
			}
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config:      env.config(body),
				PlanOnly:    true,
				ExpectError: errRe(`hard_link_not_supported`),
			},
			{
				Config:      env.config(body),
				PlanOnly:    true,
				ExpectError: errRe(`sub/link.txt has 2 hard links`),
			},
			{
				Config:      env.config(body),
				PlanOnly:    true,
				ExpectError: errRe(`set allow_hard_links = true`),
			},
			{
				PreConfig: func() {
					if err := noCopy(nil); err != nil {
						t.Error(err)
					}
				},
				Config: allowed,
				Check: resource.ComposeTestCheckFunc(
					checkWorkspaceFile(env, "tree/sub/link.txt", "not granted\n", 0o644), // copied files are 0644, as the Python SDK writes them
					checkWorkspaceFile(env, "tree/plain.txt", "plain\n", 0o644),
					checkWorkspaceFile(env, "link.txt", "not granted\n", 0o755),
				),
			},
		},
	})
}
