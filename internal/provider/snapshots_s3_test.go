package provider

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/fakes3"
)

// s3CacheConfig is the evaluation guide's pattern with the snapshots in a
// bucket: prepare (one workspace, a setup that counts its runs in side,
// an s3 snapshot with inputs) and, with evaluate, three agents restored
// from the object the data source finds, which run the setup themselves
// only when none matches.
func s3CacheConfig(env *testEnv, srv *fakes3.Server, side, evalShell string, evaluate bool) string {
	cfg := fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
%s
locals {
  setup = { shell = "echo run >> %s; printf 'tool\\n' > tool.txt" }
}
resource "sandbox_workspace" "prep" {
  local {}
}
resource "sandbox_command" "setup" {
  workspace_id = sandbox_workspace.prep.id
  shell        = local.setup.shell
}
resource "sandbox_snapshot" "env" {
  workspace_id = sandbox_command.setup.workspace_id
  inputs       = { commands = [local.setup] }
  s3 {
    bucket                 = %q
    prefix                 = "envs"
    endpoint_url           = %q
    access_key_id_wo       = var.key_id
    secret_access_key_wo   = var.secret
    credentials_wo_version = 1
  }
}
`, env.base, s3KeyVariables, side, srv.Bucket, srv.Endpoint)
	if !evaluate {
		return cfg
	}
	return cfg + fmt.Sprintf(`
locals {
  eval_setup = { shell = %q }
  env        = try(data.sandbox_snapshots.env.snapshots[0], null)
}
data "sandbox_snapshots" "env" {
  s3 {
    bucket       = %q
    prefix       = "envs"
    endpoint_url = %q
  }
  inputs = { commands = [local.eval_setup] }
}
resource "sandbox_workspace" "agent" {
  count        = 3
  local {}
  restore_from = local.env == null ? null : {
    url                  = local.env.url
    sha256               = local.env.sha256
    endpoint_url         = %q
    access_key_id_wo     = var.key_id
    secret_access_key_wo = var.secret
  }
}
resource "sandbox_command" "setup_here" {
  count        = local.env == null ? 3 : 0
  workspace_id = sandbox_workspace.agent[count.index].id
  shell        = local.eval_setup.shell
}
`, evalShell, srv.Bucket, srv.Endpoint, srv.Endpoint)
}

// checkS3Index reads the prepared snapshot's index object back.
func checkS3Index(t *testing.T, srv *fakes3.Server) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		a := s.RootModule().Resources["sandbox_snapshot.env"].Primary.Attributes
		raw, ok := srv.Object(t, "envs/"+a["snapshot_id"]+".inputs.json")
		if !ok {
			return fmt.Errorf("no index object beside %s", a["url"])
		}
		var ix map[string]any
		if err := json.Unmarshal(raw, &ix); err != nil {
			return err
		}
		if ix["sha256"] != a["sha256"] || ix["inputs_sha256"] != a["inputs_sha256"] || ix["snapshot_id"] != a["snapshot_id"] {
			return fmt.Errorf("index %s does not record the snapshot %v", raw, a)
		}
		return nil
	}
}

// The setup cache with the snapshots in S3: the data source finds the
// prepared object by its index (skipping a planted bad index, one below a
// deeper prefix, and a valid copy whose id is not a plain name),
// three agents restore it and skip the setup;
// another setup text finds none; destroy removes the object and its index.
func TestAccSnapshots_s3CacheSkipsSetup(t *testing.T) {
	srv := fakes3.Start(t, "envs", nil)
	t.Setenv("AWS_ACCESS_KEY_ID", srv.AccessKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretAccessKey)
	const oddID = "évil"
	env := newTestEnv(t)
	side := filepath.Join(t.TempDir(), "runs.log")
	shell := fmt.Sprintf("echo run >> %s; printf 'tool\\n' > tool.txt", side)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             bucketEmpty(t, srv),
		Steps: []resource.TestStep{
			{
				Config: s3CacheConfig(env, srv, side, shell, false), ConfigVariables: s3Vars(srv),
				Check: resource.ComposeTestCheckFunc(sideRuns(side, 1), checkS3Index(t, srv)),
			},
			{
				PreConfig: func() {
					srv.PutObject(t, "envs/bogus.inputs.json", []byte("not an index"))
					srv.PutObject(t, "envs/deeper/other.inputs.json", []byte("{}"))
					plantOddCopy(t, srv, oddID)
				},
				Config: s3CacheConfig(env, srv, side, shell, true), ConfigVariables: s3Vars(srv),
				Check: resource.ComposeTestCheckFunc(sideRuns(side, 1), forksHaveTool(3),
					resource.TestCheckResourceAttr("data.sandbox_snapshots.env", "snapshots.#", "1"),
					resource.TestCheckResourceAttrPair("data.sandbox_snapshots.env", "snapshots.0.url", "sandbox_snapshot.env", "url"),
					resource.TestCheckResourceAttrPair("data.sandbox_snapshots.env", "snapshots.0.sha256", "sandbox_snapshot.env", "sha256"),
					resource.TestCheckNoResourceAttr("data.sandbox_snapshots.env", "snapshots.0.path")),
			},
			{
				// Another setup text: no snapshot matches, each agent runs it.
				Config: s3CacheConfig(env, srv, side, shell+" ", true), ConfigVariables: s3Vars(srv),
				Check: resource.ComposeTestCheckFunc(sideRuns(side, 4), forksHaveTool(3),
					resource.TestCheckResourceAttr("data.sandbox_snapshots.env", "snapshots.#", "0"),
					func(*terraform.State) error {
						srv.DeleteObject(t, "envs/bogus.inputs.json")
						srv.DeleteObject(t, "envs/deeper/other.inputs.json")
						srv.DeleteObject(t, "envs/"+oddID+".inputs.json")
						srv.DeleteObject(t, "envs/"+oddID+".tar")
						return nil
					}),
			},
		},
	})
}

// Without keys for a bucket that wants them, the listing fails on the s3
// block, naming the prefix and no credential.
func TestAccSnapshots_s3Refusals(t *testing.T) {
	srv := fakes3.Start(t, "envs", nil)
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	env := newTestEnv(t)
	cfg := fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
data "sandbox_snapshots" "env" {
  s3 {
    bucket       = %q
    prefix       = "envs"
    endpoint_url = %q
  }
  inputs_sha256 = %q
}
`, env.base, srv.Bucket, srv.Endpoint, strings.Repeat("a", 64))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{Config: cfg, PlanOnly: true, ExpectError: regexp.MustCompile(`(?s)Cannot list the snapshots.*s3 LIST s3://envs/envs/`)},
		},
	})
}

// plantOddCopy copies the prepared snapshot's archive and index under the
// id id (the index rewritten to name it), as a writer of the prefix could.
func plantOddCopy(t *testing.T, srv *fakes3.Server, id string) {
	for _, key := range srv.Keys(t) {
		if !strings.HasSuffix(key, ".inputs.json") || strings.Count(key, "/") != 1 || strings.Contains(key, "bogus") {
			continue
		}
		raw, _ := srv.Object(t, key)
		var ix map[string]any
		if err := json.Unmarshal(raw, &ix); err != nil {
			t.Fatal(err)
		}
		tarball, _ := srv.Object(t, strings.TrimSuffix(key, ".inputs.json")+".tar")
		ix["snapshot_id"] = id
		b, err := json.Marshal(ix)
		if err != nil {
			t.Fatal(err)
		}
		srv.PutObject(t, "envs/"+id+".tar", tarball)
		srv.PutObject(t, "envs/"+id+".inputs.json", b)
		return
	}
	t.Fatal("no index of the prepared snapshot to copy")
}
