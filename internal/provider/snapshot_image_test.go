package provider

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	mcontainer "github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
)

// imageSnapshotBody is the prepared environment: a write-only secret in
// the root, a setup command that installs a tool outside the root, writes
// into the root and leaves a cache, and (with snapshot) an image snapshot
// of it without the secret and the cache, forked by three workspaces.
func imageSnapshotBody(repo string, snapshot bool) string {
	body := `
variable "token" {
  type      = string
  sensitive = true
  ephemeral = true
}
variable "image" {
  type    = string
  default = ""
}
resource "sandbox_file" "token" {
  workspace_id       = sandbox_workspace.ws.id
  path               = "secrets/token"
  content_wo         = var.token
  content_wo_version = 1
  permissions        = "0600"
}
resource "sandbox_command" "setup" {
  workspace_id = sandbox_workspace.ws.id
  command      = ["sh", "-c", <<-EOT
    mkdir -p /opt/tool/bin cache
    printf '#!/bin/sh\necho tool ok\n' > /opt/tool/bin/x
    chmod 755 /opt/tool/bin/x
    echo prepared > prepared.txt
    echo scratch > cache/scratch.bin
    echo run >> /setup-runs
  EOT
  ]
  depends_on = [sandbox_file.token]
}
`
	image := "var.image"
	if snapshot {
		image = "sandbox_snapshot.env.image_id"
		body += fmt.Sprintf(`
resource "sandbox_snapshot" "env" {
  workspace_id = sandbox_workspace.ws.id
  image {
    repository = %q
    tag        = "v1"
  }
  exclude    = ["secrets", "cache"]
  depends_on = [sandbox_command.setup]
}
`, repo)
	}
	return body + fmt.Sprintf(`
resource "sandbox_workspace" "fork" {
  count = 3
  docker {
    image       = %s
    pull_policy = "never"
  }
}
`, image)
}

// A Docker workspace prepared once is forked three times from an image
// snapshot: each fork has the installed tool and the root's files without
// running the setup, and the image holds neither the write-only secret
// nor the excluded cache. Destroying the snapshot while the forks run
// leaves the image.
func TestAccSnapshot_image(t *testing.T) {
	env := newDockerEnv(t)
	const secret = "img-secret-9c2f5a71"
	t.Setenv("TF_VAR_token", secret)
	repo := "sandbox-test/envsnap-" + randomSuffix(t)
	vars := config.Variables{}
	var imageID string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{
				Config: env.config("", imageSnapshotBody(repo, true)),
				Check: resource.ComposeTestCheckFunc(
					resource.TestMatchResourceAttr("sandbox_snapshot.env", "image_id", regexpSHA256Image),
					resource.TestCheckNoResourceAttr("sandbox_snapshot.env", "path"),
					noSecretInState(secret),
					func(s *terraform.State) error {
						imageID = s.RootModule().Resources["sandbox_snapshot.env"].Primary.Attributes["image_id"]
						vars["image"] = config.StringVariable(imageID)
						t.Cleanup(func() {
							_, _ = dockertest.Client().ImageRemove(context.Background(), imageID, client.ImageRemoveOptions{Force: true})
						})
						return nil
					},
					checkForks(env, 3),
					checkImageFiles(&imageID, secret),
				),
			},
			{
				// The snapshot goes while its forks run: the image stays.
				Config: env.config("", imageSnapshotBody(repo, false)), ConfigVariables: vars,
				Check: resource.ComposeTestCheckFunc(
					checkForks(env, 3),
					func(*terraform.State) error {
						_, err := dockertest.Client().ImageInspect(context.Background(), imageID)
						if err != nil {
							return fmt.Errorf("the image of a destroyed snapshot in use by forks: %w", err)
						}
						return nil
					},
				),
			},
		},
	})
}

// checkForks runs, in each fork, the installed tool and reads the root's
// files: they come from the image, the setup ran once (in the prepared
// workspace).
func checkForks(env *dockerEnv, n int) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		for i := range n {
			id := s.RootModule().Resources[fmt.Sprintf("sandbox_workspace.fork.%d", i)].Primary.Attributes["container_id"]
			env.seen[id] = true
			got, err := sh(id, "/opt/tool/bin/x; cat /workspace/prepared.txt /setup-runs; ls -A /workspace")
			if err != nil {
				return fmt.Errorf("fork %d: %w", i, err)
			}
			if got != "tool ok\nprepared\nrun\nprepared.txt" {
				return fmt.Errorf("fork %d holds:\n%s", i, got)
			}
		}
		return nil
	}
}

// checkImageFiles creates a container from the image behind the
// provider's back and reads its whole filesystem: the tool is there, the
// excluded cache and the secret file are not, and no file holds the
// secret's value.
func checkImageFiles(imageID *string, secret string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cli := dockertest.Client()
		c, err := cli.ContainerCreate(ctx, client.ContainerCreateOptions{Config: &mcontainer.Config{Image: *imageID,
			Cmd: []string{"true"}}})
		if err != nil {
			return err
		}
		defer cli.ContainerRemove(context.Background(), c.ID, client.ContainerRemoveOptions{Force: true}) //nolint:errcheck
		exp, err := cli.ContainerExport(ctx, c.ID, client.ContainerExportOptions{})
		if err != nil {
			return err
		}
		defer exp.Close()
		names := map[string]bool{}
		tr := tar.NewReader(exp)
		for {
			hdr, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
			name := strings.TrimSuffix(hdr.Name, "/")
			names[name] = true
			b, err := io.ReadAll(tr)
			if err != nil {
				return err
			}
			if bytes.Contains(b, []byte(secret)) {
				return fmt.Errorf("the image's %s holds the secret", name)
			}
		}
		for _, want := range []string{"opt/tool/bin/x", "workspace/prepared.txt", "bin/busybox"} {
			if !names[want] {
				return fmt.Errorf("the image lacks %s", want)
			}
		}
		for _, gone := range []string{"workspace/secrets", "workspace/secrets/token", "workspace/cache", "workspace/cache/scratch.bin"} {
			if names[gone] {
				return fmt.Errorf("the image holds %s", gone)
			}
		}
		return nil
	}
}

// regexpSHA256Image is an image id.
var regexpSHA256Image = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// randomSuffix is a fresh lower-case hex name part.
func randomSuffix(t *testing.T) string {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// An image snapshot of a workspace whose id says local or kubernetes fails
// the plan on the image block, contacting nothing.
func TestAccSnapshot_imagePlanRefusals(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	cases := map[string]struct{ id, want string }{
		"local":      {"local:0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11:/srv/sandboxes/a", "workspace_id names a local workspace"},
		"kubernetes": {"kubernetes:0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11:agents", "the Kubernetes API has no way to commit"},
		"two targets": {"docker:0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11",
			`Exactly one of these attributes must be configured: [local,s3,image]`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			extra := ""
			if name == "two targets" {
				extra = `local { base_path = "snaps" }`
			}
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				TerraformVersionChecks:   requireTF111,
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
resource "sandbox_snapshot" "env" {
  workspace_id = %q
  image { repository = "sandbox-test/env" }
  %s
}
`, env.base, c.id, extra),
					PlanOnly:    true,
					ExpectError: errRe(c.want),
				}},
			})
		})
	}
}
