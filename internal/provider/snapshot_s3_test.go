package provider

import (
	"archive/tar"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/fakes3"
)

const s3KeyVariables = `
variable "key_id" {
  type      = string
  sensitive = true
  ephemeral = true
}

variable "secret" {
  type      = string
  sensitive = true
  ephemeral = true
}
`

// s3SnapshotEntries is snapshotEntries with the snapshot uploaded to srv
// below prefix, signed with the variables' keys.
func s3SnapshotEntries(src string, srv *fakes3.Server, prefix string) string {
	const marker = "S3-TARGET"
	return s3KeyVariables + strings.Replace(snapshotEntries(src, marker, ""), fmt.Sprintf("local { base_path = %q }", marker),
		fmt.Sprintf(`s3 {
    bucket                 = %q
    prefix                 = %q
    endpoint_url           = %q
    access_key_id_wo       = var.key_id
    secret_access_key_wo   = var.secret
    credentials_wo_version = 1
  }`, srv.Bucket, prefix, srv.Endpoint), 1)
}

// s3RestoredWorkspace is a workspace restored from sandbox_snapshot.s's
// object (or, with url and sum set, from that object instead).
func s3RestoredWorkspace(kind string, srv *fakes3.Server, url, sum string) string {
	if url == "" {
		url, sum = "${sandbox_snapshot.s.url}", "${sandbox_snapshot.s.sha256}"
	}
	return fmt.Sprintf(`
resource "sandbox_workspace" "restored" {
  %s
  restore_from = {
    url                  = "%s"
    sha256               = "%s"
    endpoint_url         = %q
    access_key_id_wo     = var.key_id
    secret_access_key_wo = var.secret
  }
}
`, kind, url, sum, srv.Endpoint)
}

// checkS3Object reads the snapshot's object back from the server and checks
// its key, bytes and members against state; it records the key in key.
func checkS3Object(t *testing.T, srv *fakes3.Server, prefix string, key *string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		a := s.RootModule().Resources["sandbox_snapshot.s"].Primary.Attributes
		want := prefix + "/" + a["snapshot_id"] + ".tar"
		if a["url"] != "s3://"+srv.Bucket+"/"+want || a["path"] != "" {
			return fmt.Errorf("url %q path %q, want s3://%s/%s and no path", a["url"], a["path"], srv.Bucket, want)
		}
		raw, ok := srv.Object(t, want)
		if !ok {
			return fmt.Errorf("no object at %s", want)
		}
		*key = want
		return checkArchiveBytes(a, raw, false)
	}
}

// stateFilesClean fails when a state file below dir holds a secret (or
// when there is no state file to look at).
func stateFilesClean(dir string, secrets ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		found := 0
		err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() || !strings.HasPrefix(fi.Name(), "terraform.tfstate") {
				return err
			}
			found++
			b, err := os.ReadFile(p)
			for _, s := range secrets {
				if strings.Contains(string(b), s) {
					return fmt.Errorf("%s holds a credential", p)
				}
			}
			return err
		})
		if err == nil && found == 0 {
			err = fmt.Errorf("no state file below %s", dir)
		}
		return err
	}
}

func bucketEmpty(t *testing.T, srv *fakes3.Server) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if keys := srv.Keys(t); len(keys) > 0 {
			return fmt.Errorf("destroy left %v in the bucket", keys)
		}
		return nil
	}
}

// checkRestoredLocal reads the restored workspace's files back.
func checkRestoredLocal(s *terraform.State) error {
	root := s.RootModule().Resources["sandbox_workspace.restored"].Primary.Attributes["root"]
	for rel, want := range map[string]struct {
		content string
		mode    os.FileMode
	}{"out/note.txt": {"note\n", 0o640}, "bin/run.sh": {"#!/bin/sh\necho hi\n", 0o755}, "tree/sub/b.conf": {"b\n", 0o644}} {
		if err := expectFile(filepath.Join(root, rel), want.content, want.mode); err != nil {
			return err
		}
	}
	if _, err := os.Lstat(filepath.Join(root, "tmp/token")); !os.IsNotExist(err) {
		return fmt.Errorf("the ephemeral file was restored: %w", err)
	}
	return nil
}

// TestAccSnapshotS3_local uploads a local workspace's snapshot, replaces it
// when the object is deleted (found by the plan with the write-only keys:
// refresh has none) or altered (found by refresh with the environment's
// keys), restores a new workspace from it, refuses a tampered or unsafe
// object before writing anything, and removes the object on destroy.
func TestAccSnapshotS3_local(t *testing.T) {
	srv := fakes3.Start(t, "snaps", nil)
	env := newTestEnv(t)
	writeTreeSource(env)
	workDir := t.TempDir()
	t.Setenv("AWS_ACCESS_KEY_ID", "") // refresh has no keys until step 4
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	logPath := filepath.Join(t.TempDir(), "trace.log")
	t.Setenv("TF_LOG", "trace")
	t.Setenv("TF_LOG_PATH", logPath)
	cfg := env.config(s3SnapshotEntries(env.src, srv, "runs/eval"))
	restored := cfg + s3RestoredWorkspace("local {}", srv, "", "")
	var key, altered string
	evil, evilSum := writeTestArchive(t, tar.Header{Name: "./link", Typeflag: tar.TypeSymlink, Linkname: "/etc"})
	evilRaw, err := os.ReadFile(evil)
	must(t, err)
	other, _ := writeTestArchive(t) // a safe archive, not the snapshot
	otherRaw, err := os.ReadFile(other)
	must(t, err)
	refused := func(objKey string, content []byte, sum, msg string) resource.TestStep {
		return resource.TestStep{
			PreConfig: func() { srv.PutObject(t, objKey, content) },
			Config:    cfg + s3RestoredWorkspace("local {}", srv, "s3://"+srv.Bucket+"/"+objKey, sum), ConfigVariables: s3Vars(srv),
			ExpectError: regexp.MustCompile(msg),
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		WorkingDir:               workDir,
		CheckDestroy:             bucketEmpty(t, srv),
		Steps: []resource.TestStep{
			{
				Config: cfg, ConfigVariables: s3Vars(srv),
				Check: resource.ComposeTestCheckFunc(checkS3Object(t, srv, "runs/eval", &key),
					noSecretInState(srv.SecretAccessKey, srv.AccessKeyID),
					stateFilesClean(workDir, srv.SecretAccessKey, srv.AccessKeyID)),
			},
			{Config: cfg, ConfigVariables: s3Vars(srv), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
			{
				// A key rotation is recorded in place: the object stays.
				Config: strings.Replace(cfg, "credentials_wo_version = 1", "credentials_wo_version = 2", 1), ConfigVariables: s3Vars(srv),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_snapshot.s", plancheck.ResourceActionUpdate)}},
				Check: resource.ComposeTestCheckFunc(attrEquals("sandbox_snapshot.s", "s3.credentials_wo_version", "2"),
					func(s *terraform.State) error {
						var now string
						if err := checkS3Object(t, srv, "runs/eval", &now)(s); err != nil || now != key {
							return fmt.Errorf("after the rotation the object is %s (was %s): %w", now, key, err)
						}
						return nil
					}),
			},
			{
				PreConfig: func() { srv.DeleteObject(t, key) },
				Config:    cfg, ConfigVariables: s3Vars(srv),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_snapshot.s", plancheck.ResourceActionReplace)}},
				Check: checkS3Object(t, srv, "runs/eval", &key),
			},
			{
				// With the keys in the environment, refresh finds the altered
				// object and the snapshot is taken again; the altered object is
				// not the snapshot's own, so it stays (the check removes it).
				PreConfig: func() {
					t.Setenv("AWS_ACCESS_KEY_ID", srv.AccessKeyID)
					t.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretAccessKey)
					altered = key
					srv.PutObject(t, key, []byte("not the archive"))
				},
				Config: cfg, ConfigVariables: s3Vars(srv),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_snapshot.s", plancheck.ResourceActionCreate)}},
				Check: resource.ComposeTestCheckFunc(checkS3Object(t, srv, "runs/eval", &key), func(*terraform.State) error {
					if got, _ := srv.Object(t, altered); string(got) != "not the archive" || key == altered {
						return fmt.Errorf("the altered object %s holds %q (new key %s)", altered, got, key)
					}
					srv.DeleteObject(t, altered)
					return nil
				}),
			},
			refused("tampered.tar", otherRaw, "${sandbox_snapshot.s.sha256}", `differs\s+from its sha256`),
			refused("evil.tar", evilRaw, evilSum, `unsafe archive member "./link"[\s\S]*nothing was\s+written`),
			{
				PreConfig: func() {
					srv.DeleteObject(t, "tampered.tar")
					srv.DeleteObject(t, "evil.tar")
					if roots, _ := os.ReadDir(env.base); len(roots) != 1 {
						t.Errorf("a refused restore left a workspace: %v", roots)
					}
				},
				Config: restored, ConfigVariables: s3Vars(srv),
				Check: resource.ComposeTestCheckFunc(checkRestoredLocal,
					stateFilesClean(workDir, srv.SecretAccessKey, srv.AccessKeyID)),
			},
			{Config: restored, ConfigVariables: s3Vars(srv), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		},
	})
	log, err := os.ReadFile(logPath)
	if err != nil || !strings.Contains(string(log), "sandbox_snapshot") {
		t.Fatalf("no trace log of the run at %s: %v", logPath, err)
	}
	if strings.Contains(string(log), srv.SecretAccessKey) {
		t.Fatal("the trace log holds the secret access key")
	}
}

// TestAccSnapshotS3_destroyWithoutKeys: destroy gets no write-only keys, so
// without keys in the environment a signed snapshot's object is left in
// place (with a warning) rather than deleted unsigned or by another key.
func TestAccSnapshotS3_destroyWithoutKeys(t *testing.T) {
	srv := fakes3.Start(t, "snaps", nil)
	env := newTestEnv(t)
	writeTreeSource(env)
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	var key string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy: func(*terraform.State) error {
			if _, ok := srv.Object(t, key); !ok {
				return fmt.Errorf("the object %s was removed without keys", key)
			}
			srv.DeleteObject(t, key)
			return nil
		},
		Steps: []resource.TestStep{{
			Config: env.config(s3SnapshotEntries(env.src, srv, "keep")), ConfigVariables: s3Vars(srv),
			Check: checkS3Object(t, srv, "keep", &key),
		}},
	})
}

// TestAccSnapshotS3_docker snapshots a container's workspace to the bucket
// and restores a fresh container from the object: every file's sha256 and
// mode match inside the two containers, and the next plan is empty. The
// environment's keys let refresh and destroy reach the object.
func TestAccSnapshotS3_docker(t *testing.T) {
	env := newDockerEnv(t)
	writeTreeSource(env.testEnv)
	srv := fakes3.Start(t, "snaps", nil)
	t.Setenv("AWS_ACCESS_KEY_ID", srv.AccessKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretAccessKey)
	workDir := t.TempDir()
	cfg := env.config("", s3SnapshotEntries(env.src, srv, "/docker"))
	restored := cfg + s3RestoredWorkspace(fmt.Sprintf("docker {\n    image       = %q\n    pull_policy = \"never\"\n  }",
		dockertest.Image), srv, "", "") + `
resource "sandbox_file" "on_top" {
  workspace_id = sandbox_workspace.restored.id
  path         = "out/extra.txt"
  content      = "added after the restore\n"
  permissions  = "0600"
}
`
	var key string
	empty := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		WorkingDir:               workDir,
		CheckDestroy:             resource.ComposeTestCheckFunc(env.checkGone, bucketEmpty(t, srv)),
		Steps: []resource.TestStep{
			{Config: cfg, ConfigVariables: s3Vars(srv), Check: checkS3Object(t, srv, "docker", &key)},
			{Config: cfg, ConfigVariables: s3Vars(srv), ConfigPlanChecks: empty},
			{
				Config: restored, ConfigVariables: s3Vars(srv),
				Check: resource.ComposeTestCheckFunc(checkRestoredDocker(env),
					stateFilesClean(workDir, srv.SecretAccessKey, srv.AccessKeyID)),
			},
			{Config: restored, ConfigVariables: s3Vars(srv), ConfigPlanChecks: empty},
		},
	})
}

// TestAccSnapshotS3_refusals: bad S3 arguments fail at plan time, on their
// attribute, before anything is created.
func TestAccSnapshotS3_refusals(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	snap := func(body string) string {
		return env.config(s3KeyVariables + fmt.Sprintf(`
resource "sandbox_snapshot" "s" {
  workspace_id = sandbox_workspace.ws.id
  %s
}
`, body))
	}
	vars := s3Vars(&fakes3.Server{AccessKeyID: "AKTEST", SecretAccessKey: "secret-test"})
	step := func(body, msg string) resource.TestStep {
		return resource.TestStep{Config: snap(body), ConfigVariables: vars, PlanOnly: true, ExpectError: regexp.MustCompile(msg)}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			step(`s3 {
    bucket           = "b"
    access_key_id_wo = var.key_id
  }`, `(?s)Incomplete S3 credentials.*access_key_id_wo = var.key_id.*both access_key_id and\s+secret_access_key`),
			step(`s3 {
    bucket       = "b"
    endpoint_url = "http://user:pw@127.0.0.1:9000"
  }`, `(?s)Invalid endpoint_url.*endpoint_url = .*must not hold credentials`),
			step(`s3 {
    bucket = "b"
    prefix = "a/../b"
  }`, `(?s)Invalid prefix.*prefix *= "a/../b".*\.\. segment`),
			step(`s3 { region = "x" }`, `(?s)Invalid Attribute Combination.*s3\.bucket`),
			step(`local { base_path = "snaps" }
  s3 { bucket = "b" }`, `Invalid Attribute Combination`),
			step(``, `Exactly one of these attributes must be configured: \[local,s3,image\]`),
		},
	})
	if entries, _ := os.ReadDir(env.base); len(entries) > 0 {
		t.Errorf("a refused plan created %v", entries)
	}
}

// TestAccWorkspaceRestore_urlRefusals: restore_from takes exactly one of
// path and url, and url only as s3://<bucket>/<key>, at plan time.
func TestAccWorkspaceRestore_urlRefusals(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	sum := strings.Repeat("a", 64)
	cfg := func(from string) string {
		return fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}

resource "sandbox_workspace" "ws" {
  local {}
  restore_from = { %s, sha256 = %q }
}
`, env.base, from, sum)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{Config: cfg(`path = "a.tar", url = "s3://b/k.tar"`), PlanOnly: true, ExpectError: regexp.MustCompile(`Invalid Attribute Combination`)},
			{Config: cfg(`url = "https://b/k.tar"`), PlanOnly: true, ExpectError: regexp.MustCompile(`not an s3://<bucket>/<key>`)},
			{Config: cfg(`url = "s3://bucket-only"`), PlanOnly: true, ExpectError: regexp.MustCompile(`not an s3://<bucket>/<key>`)},
		},
	})
	nothingCreated(env)()
}
