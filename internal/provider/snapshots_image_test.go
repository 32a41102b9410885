package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
)

// imageCacheConfig is the evaluation guide's pattern on Docker: prepare
// (the workspace ws, a setup that installs a tool outside the root and
// counts its runs in /setup-runs, an image snapshot with inputs) and, with
// evaluate, three agent workspaces started from the image the data source
// finds, which run the setup themselves only when none matches. With
// evaluate, agent 0 is snapshotted again without inputs, to the prepared
// image's repository and tag, which it takes over.
func imageCacheConfig(env *dockerEnv, repo, evalShell string, evaluate bool) string {
	const shell = "mkdir -p /opt/tool/bin && printf '#!/bin/sh\\necho tool ok\\n' > /opt/tool/bin/x && " +
		"chmod 755 /opt/tool/bin/x && echo run >> /setup-runs"
	body := fmt.Sprintf(`
locals {
  setup = { shell = %q }
}
resource "sandbox_command" "setup" {
  workspace_id = sandbox_workspace.ws.id
  shell        = local.setup.shell
}
resource "sandbox_snapshot" "env" {
  workspace_id = sandbox_command.setup.workspace_id
  inputs       = { commands = [local.setup] }
  image {
    repository = %q
    tag        = "v1"
  }
}
`, shell, repo)
	if evaluate {
		if evalShell == "" {
			evalShell = shell
		}
		body += fmt.Sprintf(`
locals {
  eval_setup = { shell = %q }
  env        = try(data.sandbox_snapshots.env.snapshots[0], null)
}
data "sandbox_snapshots" "env" {
  image { repository = %q }
  inputs = { commands = [local.eval_setup] }
}
resource "sandbox_workspace" "agent" {
  count = 3
  docker {
    image       = local.env == null ? %q : local.env.image_id
    pull_policy = "never"
  }
}
resource "sandbox_command" "setup_here" {
  count        = local.env == null ? 3 : 0
  workspace_id = sandbox_workspace.agent[count.index].id
  shell        = local.eval_setup.shell
}
resource "sandbox_snapshot" "fork" {
  workspace_id = sandbox_workspace.agent[0].id
  image {
    repository = %q
    tag        = "v1"
  }
  depends_on = [sandbox_command.setup_here]
}
`, evalShell, repo, dockertest.Image, repo)
	}
	return env.config("", body)
}

// agentsRanSetupOnce checks by exec that each agent has the tool and that
// the setup ran once in what it holds (in the prepared workspace, or in
// the agent itself).
func agentsRanSetupOnce(env *dockerEnv) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		for i := range 3 {
			id := s.RootModule().Resources[fmt.Sprintf("sandbox_workspace.agent.%d", i)].Primary.Attributes["container_id"]
			env.seen[id] = true
			got, err := sh(id, "/opt/tool/bin/x; cat /setup-runs")
			if err != nil {
				return fmt.Errorf("agent %d: %w", i, err)
			}
			if got != "tool ok\nrun" {
				return fmt.Errorf("agent %d: got %q, want the tool and one setup run", i, got)
			}
		}
		return nil
	}
}

// labelledOnce checks on the daemon that exactly one image carries the
// prepared snapshot's inputs label: a snapshot of a fork taken without
// inputs does not inherit it.
func labelledOnce(t *testing.T) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		env := s.RootModule().Resources["sandbox_snapshot.env"].Primary.Attributes
		fork := s.RootModule().Resources["sandbox_snapshot.fork"].Primary.Attributes
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cli := dockertest.Client()
		res, err := cli.ImageList(ctx, client.ImageListOptions{
			Filters: make(client.Filters).Add("label", docker.LabelSnapshotInputs+"="+env["inputs_sha256"])})
		if err != nil {
			return err
		}
		if len(res.Items) != 1 || res.Items[0].ID != env["image_id"] {
			return fmt.Errorf("%d images labelled with the inputs, want only %s", len(res.Items), env["image_id"])
		}
		img, err := cli.ImageInspect(ctx, fork["image_id"])
		if err != nil {
			return err
		}
		l := img.Config.Labels
		if v, ok := l[docker.LabelSnapshotInputs]; ok {
			return fmt.Errorf("the fork's snapshot inherited the inputs label %q", v)
		}
		if l[docker.LabelSnapshotID] != fork["snapshot_id"] {
			return fmt.Errorf("the fork's snapshot is labelled %q, want its own id %s", l[docker.LabelSnapshotID], fork["snapshot_id"])
		}
		t.Logf("fork snapshot labels: %v", l)
		return nil
	}
}

// The setup cache on Docker: an image snapshot taken with inputs is found
// by data.sandbox_snapshots { image {} }, and workspaces started from it
// skip the setup; another setup text finds none, and the agents run it.
func TestAccSnapshots_imageCacheSkipsSetup(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	repo := "sandbox-test/cache-" + randomSuffix(t)
	t.Cleanup(func() { removeImages(t, repo) })
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{Config: imageCacheConfig(env, repo, "", false)},
			{
				// The same setup: the agents start from the prepared image, nothing runs setup again.
				Config: imageCacheConfig(env, repo, "", true),
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("data.sandbox_snapshots.env", "snapshots.#", "1"),
					resource.TestCheckResourceAttrPair("data.sandbox_snapshots.env", "snapshots.0.image_id", "sandbox_snapshot.env", "image_id"),
					resource.TestCheckResourceAttrPair("data.sandbox_snapshots.env", "snapshots.0.snapshot_id", "sandbox_snapshot.env", "snapshot_id"),
					resource.TestCheckResourceAttr("data.sandbox_snapshots.env", "snapshots.0.image", repo+":v1"),
					resource.TestCheckNoResourceAttr("data.sandbox_snapshots.env", "snapshots.0.path"),
					func(s *terraform.State) error {
						if _, ok := s.RootModule().Resources["sandbox_command.setup_here.0"]; ok {
							return fmt.Errorf("the agents ran the setup although a prepared image matched")
						}
						return nil
					},
					agentsRanSetupOnce(env),
					labelledOnce(t),
				),
			},
			{
				// The fork's snapshot took the tag: the prepared image, untagged,
				// is still found by its labels, and the agents stay as they are.
				Config:           imageCacheConfig(env, repo, "", true),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("data.sandbox_snapshots.env", "snapshots.#", "1"),
					resource.TestCheckResourceAttrPair("data.sandbox_snapshots.env", "snapshots.0.image_id", "sandbox_snapshot.env", "image_id"),
					resource.TestCheckNoResourceAttr("data.sandbox_snapshots.env", "snapshots.0.image"),
				),
			},
			{
				// Another setup text: no image matches, each agent runs it.
				Config: imageCacheConfig(env, repo, "true && mkdir -p /opt/tool/bin && printf '#!/bin/sh\\necho tool ok\\n' > "+
					"/opt/tool/bin/x && chmod 755 /opt/tool/bin/x && echo run >> /setup-runs", true),
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("data.sandbox_snapshots.env", "snapshots.#", "0"),
					resource.TestCheckResourceAttrSet("sandbox_command.setup_here.2", "id"),
					agentsRanSetupOnce(env),
				),
			},
		},
	})
}

// removeImages force-removes every image written to repo, tagged or not.
func removeImages(t *testing.T, repo string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cli := dockertest.Client()
	res, err := cli.ImageList(ctx, client.ImageListOptions{
		Filters: make(client.Filters).Add("label", docker.LabelSnapshotRepository+"="+repo)})
	if err != nil {
		t.Logf("listing %s: %v", repo, err)
		return
	}
	for _, it := range res.Items {
		_, _ = cli.ImageRemove(ctx, it.ID, client.ImageRemoveOptions{Force: true})
	}
}

// The data source looks in exactly one place: both blocks, or neither,
// fail at plan naming them.
func TestAccSnapshots_oneTargetAtPlan(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	cfg := func(blocks string) string {
		return fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
data "sandbox_snapshots" "env" {
  inputs_sha256 = %q
  %s
}
`, env.base, strings.Repeat("a", 64), blocks)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{Config: cfg(`local { base_path = "snaps" }
  image {}`), PlanOnly: true, ExpectError: regexp.MustCompile(`(?s)Invalid Attribute Combination.*local.*image`)},
			{Config: cfg(""), PlanOnly: true, ExpectError: regexp.MustCompile(`(?s)Missing Attribute Configuration.*Exactly one of.*local,image`)},
			{Config: cfg(`image { repository = "Team/Env" }`), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)image.repository.*must be a Docker repository name`)},
		},
	})
}

// A workspace whose root is a tmpfs (docker.disk) cannot be imaged: the
// snapshot fails on image, saying why and what to do, and leaves no image.
func TestAccSnapshot_imageRefusesTmpfsRoot(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	repo := "sandbox-test/tmpfs-" + randomSuffix(t)
	t.Cleanup(func() { removeImages(t, repo) })
	body := fmt.Sprintf(`
resource "sandbox_file" "task" {
  workspace_id = sandbox_workspace.ws.id
  path         = "task.md"
  content      = "task\n"
}
resource "sandbox_snapshot" "env" {
  workspace_id = sandbox_file.task.workspace_id
  image { repository = %q }
}
`, repo)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{
				Config:      env.configDocker(`disk = "16m"`, "", body),
				ExpectError: regexp.MustCompile(`(?s)The workspace root cannot be in an image.*/workspace is a\s+mount.*docker.disk`),
			},
			{
				Config: env.configDocker(`disk = "16m"`, "", ""),
				Check: func(s *terraform.State) error {
					env.container(s)
					res, err := dockertest.Client().ImageList(context.Background(), client.ImageListOptions{
						Filters: make(client.Filters).Add("label", docker.LabelSnapshotRepository+"="+repo)})
					if err != nil {
						return err
					}
					if len(res.Items) > 0 {
						return fmt.Errorf("a refused snapshot left %d images", len(res.Items))
					}
					return nil
				},
			},
		},
	})
}

// inputs are checked at plan, in the data source as in the resource: an
// entry digest that is not SHA-256 hex, and a command with both or neither
// of command and shell.
func TestAccSnapshots_inputsChecksAtPlan(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	cfg := func(inputs string) string {
		return fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
data "sandbox_snapshots" "env" {
  local { base_path = "snaps" }
  inputs = %s
}
resource "sandbox_workspace" "ws" {
  local {}
}
resource "sandbox_snapshot" "env" {
  workspace_id = sandbox_workspace.ws.id
  local { base_path = "snaps" }
  inputs = %s
}
`, env.base, inputs, inputs)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{Config: cfg(`{ entries = { "a.txt" = "nothex" } }`), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)inputs.entries\["a.txt"\].*must be a SHA-256`)},
			{Config: cfg(`{ commands = [{ shell = "true", command = ["true"] }] }`), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)Invalid setup command.*inputs.commands\[0\]: set exactly one of command`)},
			{Config: cfg(`{ commands = [{ working_dir = "src" }] }`), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)Invalid setup command.*inputs.commands\[0\]`)},
		},
	})
}
