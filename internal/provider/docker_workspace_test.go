package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
)

const dockerWorkspaceExtra = `
  environment   = { GREETING = "hello" }
  users         = [{ name = "agent" }]
  groups        = [{ name = "team", users = [{ name = "agent" }, { name = "reviewer" }] }]
  exposed_ports = [8080]
`

func dockerEntries(src string) string {
	return fmt.Sprintf(`
resource "sandbox_dir" "data" {
  workspace_id = sandbox_workspace.ws.id
  path         = "data"
  permissions  = "0770"
  group        = "team"
}

resource "sandbox_file" "hello" {
  workspace_id = sandbox_workspace.ws.id
  path         = "data/hello.txt"
  content      = "hi from terraform\n"
  permissions  = "-rw-r-----"
  group        = "team"
  depends_on   = [sandbox_dir.data]
}

resource "sandbox_file" "page" {
  workspace_id = sandbox_workspace.ws.id
  path         = "www/index.html"
  source       = %q
  permissions  = "0644"
}

resource "sandbox_local_dir" "skills" {
  workspace_id = sandbox_workspace.ws.id
  path         = "skills"
  source       = %q
  permissions  = "0750"
}
`, src+"/index.html", src+"/skills")
}

// Every entry kind inside a container, checked by exec; users and groups;
// an HTTP server reached at url_http; import; drift repaired; a stopped
// container started again; a removed container re-created; destroy.
func TestAccDockerWorkspace_lifecycle(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	env.writeSource("index.html", "<h1>served from the sandbox</h1>\n", 0o644)
	env.writeSource("skills/a.md", "alpha\n", 0o644)
	env.writeSource("skills/tools/run.sh", "#!/bin/sh\necho run\n", 0o755)
	env.writeSource("skills/tools/notes.txt", "notes\n", 0o600)
	cfg := env.config(dockerWorkspaceExtra, dockerEntries(env.src))
	var firstContainer string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("sandbox_workspace.ws", tfjsonpath.New("root"), knownvalue.StringExact("/workspace")),
					statecheck.ExpectKnownValue("sandbox_workspace.ws", tfjsonpath.New("container_id"), knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{64}$`))),
					statecheck.ExpectKnownValue("sandbox_file.hello", tfjsonpath.New("absolute_path"), knownvalue.StringExact("/workspace/data/hello.txt")),
					statecheck.ExpectKnownValue("sandbox_local_dir.skills", tfjsonpath.New("file_count"), knownvalue.Int64Exact(3)),
				},
				Check: resource.ComposeTestCheckFunc(
					func(s *terraform.State) error { firstContainer = env.container(s); return nil },
					env.expectSh("id -nG agent; id -nG reviewer; echo $GREETING", "agent team\nreviewer team\nhello"),
					// Entries without owner or group take the root's owner (the
					// first user) and its primary group; the parent made for
					// www/index.html stays root's. Copied files 0644, as the
					// Python SDK.
					env.expectSh("cd /workspace && stat -c '%a %U:%G %n' data data/hello.txt www www/index.html skills skills/a.md skills/tools/run.sh skills/tools/notes.txt",
						"770 agent:team data\n640 agent:team data/hello.txt\n755 root:root www\n644 agent:agent www/index.html\n750 agent:agent skills\n644 agent:agent skills/a.md\n644 agent:agent skills/tools/run.sh\n644 agent:agent skills/tools/notes.txt"),
					env.expectSh("cat /workspace/data/hello.txt /workspace/skills/tools/run.sh", "hi from terraform\n#!/bin/sh\necho run"),
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "endpoints.0.port", "8080"),
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "endpoints.0.host", "127.0.0.1"),
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "endpoints.0.tls", "false"),
					checkHTTP(env),
				),
			},
			{ResourceName: "sandbox_workspace.ws", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"keep_on_destroy", "docker.pull_policy"}},
			{
				// Import by the bare UUID: the container is found by its
				// sandbox.workspace_id label.
				ResourceName: "sandbox_workspace.ws", ImportState: true, ImportStateVerify: true,
				ImportStateIdFunc: func(s *terraform.State) (string, error) {
					return strings.TrimPrefix(s.RootModule().Resources["sandbox_workspace.ws"].Primary.ID, "docker:"), nil
				},
				ImportStateVerifyIgnore: []string{"keep_on_destroy", "docker.pull_policy"},
			},
			{ResourceName: "sandbox_file.hello", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"content", "manifest_entry", "size", "content_sha256", "permissions", "group", "content_md5", "content_sha1", "content_base64sha256", "content_sha512", "content_base64sha512"}},
			{ResourceName: "sandbox_dir.data", ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: []string{"permissions", "group", "manifest_entry"}},
			{ResourceName: "sandbox_local_dir.skills", ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: []string{"source", "permissions", "manifest_entry"}},
			{
				// Drift inside the container: content, mode and group changed,
				// a copied file edited, one removed and a foreign one added.
				PreConfig: func() {
					_, err := sh(firstContainer, `cd /workspace && echo tampered > data/hello.txt && chmod 777 data && chgrp root data/hello.txt &&
echo changed > skills/a.md && rm skills/tools/notes.txt && echo extra > skills/extra.txt && chmod 777 www/index.html`)
					must(t, err)
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionNoop),
					plancheck.ExpectResourceAction("sandbox_file.hello", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("sandbox_dir.data", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("sandbox_file.page", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("sandbox_local_dir.skills", plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeTestCheckFunc(
					env.expectSh("cd /workspace && cat data/hello.txt && stat -c '%a %G' data data/hello.txt www/index.html && ls -R skills | tr '\\n' ' '",
						"hi from terraform\n770 team\n640 team\n644 agent\nskills: a.md tools  skills/tools: notes.txt run.sh"),
					env.expectSh("cat /workspace/skills/a.md /workspace/skills/tools/notes.txt", "alpha\nnotes"),
				),
			},
			{
				// A stopped container is shown as running = false, and the
				// apply starts it; its entries are left as they are.
				PreConfig: func() {
					timeout := 0
					_, err := dockertest.Client().ContainerStop(context.Background(), firstContainer, client.ContainerStopOptions{Timeout: &timeout})
					must(t, err)
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("sandbox_file.hello", plancheck.ResourceActionNoop),
				}},
			},
			{
				// The container removed out of band: the workspace and its
				// entries are planned for creation, not reported as errors.
				PreConfig: func() {
					ins, err := dockertest.Client().ContainerInspect(context.Background(), firstContainer, client.ContainerInspectOptions{})
					must(t, err)
					if !ins.Container.State.Running {
						t.Fatalf("the apply did not start the stopped container %s", firstContainer)
					}
					_, err = dockertest.Client().ContainerRemove(context.Background(), firstContainer, client.ContainerRemoveOptions{Force: true})
					must(t, err)
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction("sandbox_file.hello", plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction("sandbox_local_dir.skills", plancheck.ResourceActionCreate),
				}},
				Check: resource.ComposeTestCheckFunc(
					func(s *terraform.State) error {
						if id := env.container(s); id == firstContainer {
							return fmt.Errorf("the re-created workspace kept container %s", id)
						}
						return nil
					},
					env.expectSh("cat /workspace/data/hello.txt; stat -c '%a %G' /workspace/data", "hi from terraform\n770 team"),
					checkHTTP(env),
				),
			},
		},
		CheckDestroy: env.checkGone,
	})
}

// checkHTTP starts busybox httpd in the container on the exposed port and
// fetches the page from the host at the endpoint's url_http.
func checkHTTP(env *dockerEnv) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		if _, err := sh(env.container(s), "httpd -p 8080 -h /workspace/www"); err != nil {
			return err
		}
		url := s.RootModule().Resources["sandbox_workspace.ws"].Primary.Attributes["endpoints.0.url_http"]
		if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/$`).MatchString(url) {
			return fmt.Errorf("url_http = %q", url)
		}
		body, err := httpGet(url + "index.html")
		if err != nil {
			return fmt.Errorf("GET %sindex.html: %w", url, err)
		}
		if body != "<h1>served from the sandbox</h1>\n" {
			return fmt.Errorf("GET %sindex.html = %q", url, body)
		}
		return nil
	}
}
