package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// A directory of the workspace replaced inside the container by a symlink
// to /etc: the next write through it is refused and /etc is untouched.
func TestAccDockerWorkspace_plantedSymlink(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	dir := `
resource "sandbox_dir" "conf" {
  workspace_id = sandbox_workspace.ws.id
  path         = "conf"
}
`
	withFile := dir + `
resource "sandbox_file" "passwd" {
  workspace_id = sandbox_workspace.ws.id
  path         = "conf/passwd"
  content      = "pwned::0:0::/:/bin/sh\n"
  depends_on   = [sandbox_dir.conf]
}
`
	var container, etcBefore string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: env.config("", dir),
				Check: func(s *terraform.State) error {
					container = env.container(s)
					var err error
					etcBefore, err = sh(container, "sha256sum /etc/passwd /etc/group; ls -la /etc")
					return err
				},
			},
			{
				PreConfig: func() {
					_, err := sh(container, "rmdir /workspace/conf && ln -s /etc /workspace/conf")
					must(t, err)
				},
				Config:      env.config("", withFile),
				ExpectError: errRe("path escapes the workspace root"),
			},
			{
				// Put the directory back so that destroy can run, after
				// checking that nothing under /etc changed.
				PreConfig: func() {
					after, err := sh(container, "sha256sum /etc/passwd /etc/group; ls -la /etc")
					must(t, err)
					if after != etcBefore {
						t.Fatalf("/etc changed through the planted symlink:\nbefore:\n%s\nafter:\n%s", etcBefore, after)
					}
					_, err = sh(container, "rm /workspace/conf && mkdir /workspace/conf")
					must(t, err)
				},
				Config: env.config("", dir),
			},
		},
		CheckDestroy: env.checkGone,
	})
}

// A missing image with pull_policy "never", and a pull that fails, are
// reported with the daemon's reason.
func TestAccDockerWorkspace_imageErrors(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	for name, c := range map[string]struct{ image, policy, want string }{
		"never":       {"sandbox-test/does-not-exist:1", "never", `pull_policy is "never"`},
		"pull failed": {"127.0.0.1:1/sandbox-test/none:1", "missing", "pulling image 127.0.0.1:1/sandbox-test/none:1"},
	} {
		t.Run(name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
resource "sandbox_workspace" "ws" {
  docker {
    image       = %q
    pull_policy = %q
  }
}
`, env.base, c.image, c.policy),
					ExpectError: errRe(c.want),
				}},
			})
		})
	}
}

// Plan-time refusals need no daemon.
func TestAccDockerWorkspace_planRefusals(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	cases := map[string]struct{ provider, body, want string }{
		"ports without network": {"", `docker {
    image        = "alpine:3.20"
    network_mode = "none"
  }
  exposed_ports = [8080]`, "exposed_ports cannot be used when network_mode='none'"},
		"both backends": {"", `local {}
  docker { image = "alpine:3.20" }`, "a workspace has exactly one backend"},
		"no image": {"", `docker {}`, "a docker block needs an image"},
		"reserved label": {"", `docker {
    image  = "alpine:3.20"
    labels = { "sandbox.workspace_id" = "x" }
  }`, "is set by the provider on every workspace container"},
		"pull policy": {"", `docker {
    image       = "alpine:3.20"
    pull_policy = "sometimes"
  }`, `value must be one of`},
		"tls without ca": {`docker_host = "tcp://127.0.0.1:2376"
  docker_cert_pem = "x"
  docker_key_pem = "y"`, `docker { image = "alpine:3.20" }`, "without a CA certificate"},
		"bad docker host": {`docker_host = "ftp://127.0.0.1"`, `docker { image = "alpine:3.20" }`, `unsupported scheme "ftp"`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
  %s
}
resource "sandbox_workspace" "ws" {
  %s
}
`, base, c.provider, c.body),
					PlanOnly:    true,
					ExpectError: errRe(c.want),
				}},
			})
		})
	}
}
