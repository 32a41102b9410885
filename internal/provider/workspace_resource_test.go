package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

var localIDRe = regexp.MustCompile(`^local:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}:/`)

func TestAccWorkspace_lifecycle(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	var firstID string
	withFile := env.config(`
resource "sandbox_file" "f" {
  workspace_id = sandbox_workspace.ws.id
  path         = "hello.txt"
  content      = "hi"
}
`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: withFile,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("sandbox_workspace.ws", tfjsonpath.New("id"), knownvalue.StringRegexp(localIDRe)),
					statecheck.ExpectKnownValue("sandbox_workspace.ws", tfjsonpath.New("keep_on_destroy"), knownvalue.Bool(false)),
				},
				Check: resource.ComposeTestCheckFunc(
					func(s *terraform.State) error {
						rs := s.RootModule().Resources["sandbox_workspace.ws"].Primary
						firstID = rs.ID
						ref, err := workspace.ParseID(rs.ID)
						if err != nil {
							return err
						}
						want := filepath.Join(env.base, ref.UUID)
						if rs.Attributes["root"] != want || ref.Root != want {
							return fmt.Errorf("root = %q, want %q", rs.Attributes["root"], want)
						}
						fi, err := os.Stat(want)
						if err != nil || !fi.IsDir() {
							return fmt.Errorf("workspace directory %s missing: %w", want, err)
						}
						return expectFile(filepath.Join(want, "hello.txt"), "hi", 0o755)
					},
				),
			},
			{
				ResourceName:            "sandbox_workspace.ws",
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"keep_on_destroy"},
			},
			{
				// The directory vanished: the workspace is planned for
				// re-creation with a new id, and its entry with it.
				PreConfig: func() { must(t, os.RemoveAll(env.wsRoot())) },
				Config:    withFile,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionCreate),
						plancheck.ExpectResourceAction("sandbox_file.f", plancheck.ResourceActionCreate),
					},
				},
				Check: func(s *terraform.State) error {
					rs := s.RootModule().Resources["sandbox_workspace.ws"].Primary
					if rs.ID == firstID {
						return fmt.Errorf("re-created workspace kept id %s", rs.ID)
					}
					return expectFile(filepath.Join(rs.Attributes["root"], "hello.txt"), "hi", 0o755)
				},
			},
		},
		CheckDestroy: func(*terraform.State) error {
			entries, _ := os.ReadDir(env.base)
			for _, e := range entries {
				if e.Name() != ".workspaces" {
					return fmt.Errorf("%s left behind after destroy", e.Name())
				}
			}
			return nil
		},
	})
}

func TestAccWorkspace_explicitRootKeepAndImportByRoot(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	root := filepath.Join(t.TempDir(), "agent-1")
	cfg := func(keep bool) string {
		return fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
resource "sandbox_workspace" "ws" {
  root            = %q
  keep_on_destroy = %t
  exposed_ports   = [8080, 8080, 9000]
  local {}
}
`, env.base, root, keep)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: cfg(true),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("sandbox_workspace.ws", tfjsonpath.New("root"), knownvalue.StringExact(root)),
					statecheck.ExpectKnownValue("sandbox_workspace.ws", tfjsonpath.New("endpoints"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectExact(map[string]knownvalue.Check{
							"port": knownvalue.Int64Exact(8080), "host": knownvalue.StringExact("127.0.0.1"),
							"host_port": knownvalue.Int64Exact(8080), "tls": knownvalue.Bool(false),
							"url_http": knownvalue.StringExact("http://127.0.0.1:8080/"), "url_ws": knownvalue.StringExact("ws://127.0.0.1:8080/"),
						}),
						knownvalue.ObjectExact(map[string]knownvalue.Check{
							"port": knownvalue.Int64Exact(9000), "host": knownvalue.StringExact("127.0.0.1"),
							"host_port": knownvalue.Int64Exact(9000), "tls": knownvalue.Bool(false),
							"url_http": knownvalue.StringExact("http://127.0.0.1:9000/"), "url_ws": knownvalue.StringExact("ws://127.0.0.1:9000/"),
						}),
					})),
				},
			},
			{
				ResourceName:            "sandbox_workspace.ws",
				ImportState:             true,
				ImportStateId:           root,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"keep_on_destroy", "exposed_ports", "endpoints"},
			},
		},
		CheckDestroy: func(*terraform.State) error {
			if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
				return fmt.Errorf("keep_on_destroy = true, yet %s is gone: %w", root, err)
			}
			return nil
		},
	})
}

func TestAccWorkspace_refusals(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	busy := t.TempDir()
	wd, err := os.Getwd()
	must(t, err)
	must(t, os.WriteFile(filepath.Join(busy, "precious.txt"), []byte("keep me"), 0o644))
	real, link := t.TempDir(), filepath.Join(t.TempDir(), "link")
	must(t, os.Symlink(real, link))
	cases := map[string]struct {
		body, want string
		planOnly   bool
	}{
		// A root below a symlinked parent, refused on root naming the link.
		"symlinked parent": {fmt.Sprintf(`root = %q
  local {}`, filepath.Join(link, "ws")), fmt.Sprintf(`Unusable workspace root with sandbox_workspace.ws, on terraform_plugin_test.tf line 16,
  in resource "sandbox_workspace" "ws": 16: root = %q symlink_not_supported: workspace root %s lies below the symlink %s`,
			filepath.Join(link, "ws"), filepath.Join(link, "ws"), link), true},
		"non-empty root": {fmt.Sprintf(`root = %q
  local {}`, busy), "refusing to create a workspace in non-empty directory", true},
		"filesystem root": {`root = "/"
  local {}`, "the filesystem root cannot be a workspace root", true},
		"holds base dir": {fmt.Sprintf(`root = %q
  local {}`, filepath.Dir(env.base)), "holds the provider's local_base_dir", true},
		"holds working dir": {fmt.Sprintf(`root = %q
  local {}`, filepath.Dir(wd)), "holds Terraform's working directory", true},
		"relative root": {`root = "rel/dir"
  local {}`, `must be an absolute, clean path`, true},
		"users on local": {`users = [{ name = "agent" }]
  local {}`, LocalUsersGroupsMessage, true},
		"no backend": {``, `needs a block selecting its backend`, true},
		"port range": {`exposed_ports = [70000]
  local {}`, `must be between 1 and 65535`, true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
resource "sandbox_workspace" "ws" {
  %s
}
`, env.base, c.body),
					PlanOnly:    c.planOnly,
					ExpectError: errRe(c.want),
				}},
			})
		})
	}
	b, err := os.ReadFile(filepath.Join(busy, "precious.txt"))
	if err != nil || string(b) != "keep me" {
		t.Fatalf("the refused workspace touched existing content: %q %v", b, err)
	}
	if _, err := os.Lstat(filepath.Join(real, "ws")); !os.IsNotExist(err) {
		t.Fatalf("the refused root behind the symlink was created: %v", err)
	}
}

func TestAccProvider_invalidGrant(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ grant, want string }{
		{`{ path = "tmp" }`, "sandbox path grant path must be POSIX absolute"},
		{`{ path = "/" }`, "sandbox path grant path must not be filesystem root"},
		{`{ path = "/mnt/x", host_path = "/srv/../secret" }`, "sandbox path grant host_path must not contain parent segments"},
	} {
		t.Run(c.grant, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf(`
provider "sandbox" {
  extra_path_grants = [%s]
}
resource "sandbox_workspace" "ws" {
  local {}
}
`, c.grant),
					PlanOnly:    true,
					ExpectError: errRe(c.want),
				}},
			})
		})
	}
}

func TestAccEntries_workspaceIDChecked(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: env.config(`
resource "sandbox_dir" "d" {
  workspace_id = "../../etc"
  path         = "x"
}
`),
			PlanOnly:    true,
			ExpectError: errRe(`"../../etc" is not a workspace id`),
		}},
	})
}

func TestAccWorkspace_overlappingRootsRefused(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	outer := filepath.Join(t.TempDir(), "outer")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
resource "sandbox_workspace" "outer" {
  root = %q
  local {}
}
`, env.base, outer),
			},
			{
				Config: fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
resource "sandbox_workspace" "outer" {
  root = %q
  local {}
}
resource "sandbox_workspace" "inner" {
  root = %q
  local {}
}
`, env.base, outer, filepath.Join(outer, "inner")),
				PlanOnly:    true,
				ExpectError: errRe("must not share directories"),
			},
		},
	})
}
