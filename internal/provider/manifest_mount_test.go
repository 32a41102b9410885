package provider

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/fakes3"
)

// manifestMountConfig is a local workspace with a sandbox_manifest holding
// a file and the mount entry of manifestJSON's %s, its credentials given by
// creds (HCL arguments).
func manifestMountConfig(env *testEnv, entries, creds string) string {
	return env.config(s3KeyVariables + fmt.Sprintf(`
resource "sandbox_manifest" "m" {
  workspace_id  = sandbox_workspace.ws.id
  manifest_json = %s
  %s
}
`, hclString(`{"entries": {"notes.txt": {"type": "file", "content": "n"}, `+entries+`}}`), creds))
}

// s3ManifestEntry is an s3_mount entry of srv at "data" (rclone, fuse,
// read-only by the Python SDK's default); extra adds fields.
func s3ManifestEntry(srv *fakes3.Server, extra string) string {
	return fmt.Sprintf(`"data": {"type": "s3_mount", "bucket": %q, "endpoint_url": %q, "s3_provider": "Other"%s,
  "mount_strategy": {"type": "in_container", "pattern": {"type": "rclone"}}}`, srv.Bucket, srv.Endpoint, extra)
}

const s3ManifestCreds = `mount_credentials_wo   = { data = { access_key_id = var.key_id, secret_access_key = var.secret } }
  credentials_wo_version = 1`

// TestAccManifestMount_lifecycle: a mount entry is mounted by the apply
// (files read back through it), refreshes as mounted, is mounted again by
// an update after it went away out of band, and is unmounted, with its
// helper stopped and its generated files and mount point removed, when
// the manifest is destroyed.
func TestAccManifestMount_lifecycle(t *testing.T) {
	t.Parallel()
	srv := fidelityMountServer(t)
	env := newTestEnv(t)
	t.Cleanup(func() { fakes3.UnmountAllUnder(t, env.base) })
	cfg := manifestMountConfig(env, s3ManifestEntry(srv, ""), s3ManifestCreds)
	var sid string
	mountDir := func() string { return filepath.Join(env.wsRoot(), "data") }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: cfg, ConfigVariables: s3Vars(srv),
				Check: resource.ComposeTestCheckFunc(
					checkMountedFiles(env, fidelityMountFiles),
					checkReadOnlyMount(env, srv),
					resource.TestCheckResourceAttr("sandbox_manifest.m", "entries.data.mounted", "true"),
					resource.TestCheckResourceAttr("sandbox_manifest.m", "entries.data.type", "s3_mount"),
					resource.TestCheckNoResourceAttr("sandbox_manifest.m", "entries.data.permissions"),
					func(*terraform.State) error {
						confs, _ := filepath.Glob(filepath.Join(env.wsRoot(), ".sandbox-rclone-config", "*", "*.conf"))
						if len(confs) != 1 {
							return fmt.Errorf("generated rclone configs: %v, want one", confs)
						}
						sid = filepath.Base(filepath.Dir(confs[0]))
						return expectFile(filepath.Join(env.wsRoot(), "notes.txt"), "n", 0o755)
					},
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				PreConfig: func() {
					if out, err := exec.Command("fusermount3", "-u", mountDir()).CombinedOutput(); err != nil {
						t.Fatalf("unmounting out of band: %v: %s", err, out)
					}
				},
				Config: cfg, ConfigVariables: s3Vars(srv),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("sandbox_manifest.m", plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					checkMountedFiles(env, fidelityMountFiles),
					resource.TestCheckResourceAttr("sandbox_manifest.m", "entries.data.mounted", "true"),
					func(*terraform.State) error {
						if _, err := os.Stat(filepath.Join(env.wsRoot(), ".sandbox-rclone-config", sid)); !os.IsNotExist(err) {
							return fmt.Errorf("the old mount's rclone config directory survived the remount: %w", err)
						}
						return nil
					},
				),
			},
			{
				// A changed entry is unmounted and mounted again as it now says.
				Config:          manifestMountConfig(env, s3ManifestEntry(srv, `, "prefix": "dir"`), s3ManifestCreds),
				ConfigVariables: s3Vars(srv),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("sandbox_manifest.m", plancheck.ResourceActionUpdate)},
				},
				Check: func(*terraform.State) error {
					if err := expectFile(filepath.Join(mountDir(), "nested.txt"), fidelityMountFiles["dir/nested.txt"], 0o600); err != nil {
						return err
					}
					if confs, _ := rcloneConfigs(t, env.base); len(confs) != 1 {
						return fmt.Errorf("generated rclone configs after the remount: %v, want one", confs)
					}
					return nil
				},
			},
			{
				// The entry leaves the manifest: unmounted, its mount point
				// removed, the rest kept.
				Config: env.config(fmt.Sprintf(`
resource "sandbox_manifest" "m" {
  workspace_id  = sandbox_workspace.ws.id
  manifest_json = %s
}`, hclString(`{"entries": {"notes.txt": {"type": "file", "content": "n"}}}`))),
				Check: func(*terraform.State) error {
					if _, err := os.Lstat(mountDir()); !os.IsNotExist(err) {
						return fmt.Errorf("the removed mount entry's directory survived: %w", err)
					}
					if pids := fakes3.RclonePIDs(mountDir()); len(pids) > 0 {
						return fmt.Errorf("rclone processes %v outlived the entry", pids)
					}
					return expectFile(filepath.Join(env.wsRoot(), "notes.txt"), "n", 0o755)
				},
			},
			{
				Config: env.config(""),
				Check: func(*terraform.State) error {
					if ok, _, _ := fakes3.Mounted(mountDir()); ok {
						return fmt.Errorf("%s is still mounted after destroy", mountDir())
					}
					if pids := fakes3.RclonePIDs(mountDir()); len(pids) > 0 {
						return fmt.Errorf("rclone processes %v outlived destroy", pids)
					}
					for _, p := range []string{".sandbox-rclone-config", "data", "notes.txt"} {
						if _, err := os.Lstat(filepath.Join(env.wsRoot(), p)); !os.IsNotExist(err) {
							return fmt.Errorf("%s survived destroy: %w", p, err)
						}
					}
					if n := srv.Writes(); n != 0 {
						return fmt.Errorf("the bucket saw %d writes", n)
					}
					return nil
				},
			},
		},
	})
}

// TestAccManifestMount_planRefusals: the mount resources' plan-time checks
// run on manifest mount entries, on manifest_json or mount_credentials_wo,
// naming the entry; nothing is mounted or written.
func TestAccManifestMount_planRefusals(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	srv := &fakes3.Server{Bucket: "b", Endpoint: "http://127.0.0.1:9"}
	rclone := `"mount_strategy": {"type": "in_container", "pattern": {"type": "rclone"}}`
	step := func(entries, creds, want string) resource.TestStep {
		return resource.TestStep{Config: manifestMountConfig(env, entries, creds), PlanOnly: true,
			ConfigVariables: s3Vars(&fakes3.Server{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "example-secret"}), ExpectError: errReAll(want)}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{Config: env.config(s3KeyVariables), ConfigVariables: s3Vars(srv)}, // the workspace exists
			step(s3ManifestEntry(srv, `, "secret_access_key": "plain"`), "",
				`entry "data": sets secret_access_key in the manifest's JSON, which is stored in plain text`),
			step(s3ManifestEntry(srv, ""), `mount_credentials_wo = { other = { access_key_id = var.key_id } }`,
				`the key "other" names no mount entry of manifest_json`),
			step(s3ManifestEntry(srv, ""), `mount_credentials_wo = { data = { token = var.key_id } }`,
				`Credential not used by s3_mount|mount_credentials_wo = |entry "data": token is not a credential of s3_mount; its credentials are access_key_id, secret_access_key, session_token`),
			step(s3ManifestEntry(srv, ""), `mount_credentials_wo = { data = { access_key_id = var.key_id } }`,
				`Mount entry "data" (s3_mount) refused|complete non-empty credential set`),
			step(`"data": {"type": "r2_mount", "bucket": "b", "account_id": "a", "mount_strategy": {"type": "in_container", `+
				`"pattern": {"type": "rclone", "extra_args": ["--config=/workspace/c.conf"]}}}`,
				`mount_credentials_wo = { data = { access_key_id = var.key_id, secret_access_key = var.secret } }`,
				`Mount entry "data" (r2_mount) refused|does not support exposing the configured credential fields`),
			step(`"data": {"type": "gcs_mount", "bucket": "b", "service_account_file": "sa.json", `+rclone+`}`, "",
				`credential files stored in the manifest are not supported for cloud mounts`),
			step(s3ManifestEntry(srv, `, "mount_path": "/tmp/elsewhere"`), "",
				`Mount entry "data" (s3_mount) refused|outside the workspace root`),
			step(`"data": {"type": "s3_mount", "bucket": "b", "mount_strategy": {"type": "docker_volume", "driver": "rclone"}}`, "",
				`docker-volume mounts are not supported by this sandbox backend`),
			step(`"data": {"type": "r2_mount", "bucket": "b", "account_id": "a", "mount_strategy": {"type": "in_container", `+
				`"pattern": {"type": "mountpoint"}}}`, "", `invalid mount_pattern type`),
			step(s3ManifestEntry(srv, "")+`, "data/x": {"type": "file", "content": ""}`, "",
				`entry "data/x" lies inside s3_mount entry "data": the mount would hide it`),
			{
				Config: env.config(s3KeyVariables), ConfigVariables: s3Vars(srv),
				Check: func(*terraform.State) error {
					entries, err := os.ReadDir(env.wsRoot())
					if err != nil || len(entries) != 0 {
						return fmt.Errorf("refused plans touched the workspace: %v (%w)", entries, err)
					}
					return nil
				},
			},
		},
	})
}

// cleanupMounts destroys (with args) at the end of the test unless
// *applied was cleared, then unmounts whatever is still mounted below dir:
// a failed apply may leave mounts behind.
func (c *cliRun) cleanupMounts(dir string, applied *bool, args ...string) {
	c.t.Cleanup(func() {
		if *applied {
			c.mustSucceed = false
			c.run("destroy.log", append([]string{"destroy", "-auto-approve", "-input=false"}, args...)...)
		}
		fakes3.UnmountAllUnder(c.t, dir)
	})
}

// rcloneConfigs returns the rclone configs generated in the workspaces
// below base and their text.
func rcloneConfigs(t *testing.T, base string) ([]string, string) {
	t.Helper()
	confs, _ := filepath.Glob(filepath.Join(base, "*", ".sandbox-rclone-config", "*", "*.conf"))
	var text strings.Builder
	for _, c := range confs {
		b, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		text.Write(b)
	}
	return confs, text.String()
}

// readPlaces adds the files of the run's directory to places, and fails
// unless apply.log traces the provider's resource (else the log check would
// prove nothing).
func (c *cliRun) readPlaces(places map[string]string, resource string, files ...string) {
	c.t.Helper()
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(c.dir, f))
		if err != nil {
			c.t.Fatalf("reading %s: %v", f, err)
		}
		places[f] = string(b)
	}
	if !strings.Contains(places["apply.log"], resource) || !strings.Contains(places["apply.log"], "TRACE") {
		c.t.Fatalf("apply.log holds no trace of the provider: the log check would prove nothing")
	}
}

// errReAll matches the |-separated texts of want in this order, as errRe
// matches one.
func errReAll(want string) *regexp.Regexp {
	parts := strings.Split(want, "|")
	for i, p := range parts {
		parts[i] = errRe(p).String()
	}
	return regexp.MustCompile("(?s)" + strings.Join(parts, ".*"))
}

// TestAccManifestMount_noSecretLeaks applies, re-plans with a new
// credentials version and destroys a manifest with a mount entry through
// the real CLI with TF_LOG=trace: the keys reach the generated rclone
// config (positive control) and appear in no state, plan, log or process
// command line.
func TestAccManifestMount_noSecretLeaks(t *testing.T) {
	t.Parallel()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	srv := fidelityMountServer(t)
	token := leakSecret(t, "session-token")
	dir := t.TempDir()
	env := &testEnv{t: t, base: filepath.Join(dir, "base"), src: filepath.Join(dir, "src")}
	if err := os.MkdirAll(env.src, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := `
terraform {
  required_providers {
    sandbox = { source = "agentsandbox/sandbox" }
  }
}
` + strings.Replace(manifestMountConfig(env, s3ManifestEntry(srv, ""), `mount_credentials_wo = { data = {
    access_key_id = var.key_id, secret_access_key = var.secret, session_token = var.token } }
  credentials_wo_version = var.v`), s3KeyVariables, s3KeyVariables+`
variable "token" {
  type      = string
  sensitive = true
  ephemeral = true
}
variable "v" {
  type = number
}
`, 1)
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cli := newCLIRun(t, dir)
	cli.env = append(cli.env, "TF_VAR_key_id="+srv.AccessKeyID, "TF_VAR_secret="+srv.SecretAccessKey, "TF_VAR_token="+token)
	applied := true
	cli.cleanupMounts(dir, &applied, "-var", "v=1")
	cli.run("apply.log", "apply", "-auto-approve", "-input=false", "-var", "v=1")
	confs, confText := rcloneConfigs(t, env.base)
	if !strings.Contains(confText, srv.SecretAccessKey) || !strings.Contains(confText, token) {
		t.Fatalf("positive control: the keys are not in the generated rclone configs %v", confs)
	}
	procArgs := processArguments(t)
	cli.run("plan.log", "plan", "-input=false", "-out=rotate.tfplan", "-var", "v=2")
	planJSON := cli.run("show.log", "show", "-json", "rotate.tfplan")
	if !strings.Contains(planJSON, `"update"`) {
		t.Fatalf("a new credentials version plans no update:\n%.2000s", planJSON)
	}
	cli.run("apply2.log", "apply", "-auto-approve", "-input=false", "rotate.tfplan")
	if again, _ := rcloneConfigs(t, env.base); len(again) != 1 || again[0] == confs[0] {
		t.Errorf("a new credentials version did not mount again with a new session: %v, then %v", confs, again)
	}
	stateJSON := cli.run("show-state.log", "show", "-json")
	cli.run("destroy.log", "destroy", "-auto-approve", "-input=false", "-var", "v=2")
	applied = false
	places := map[string]string{"plan JSON": planJSON, "state JSON": stateJSON, "process arguments": procArgs,
		"command output": cli.out.String()}
	cli.readPlaces(places, "sandbox_manifest", "terraform.tfstate", "terraform.tfstate.backup", "apply.log", "plan.log",
		"show.log", "apply2.log", "show-state.log", "destroy.log")
	noLeaks(t, map[string]string{"access_key_id": srv.AccessKeyID, "secret_access_key": srv.SecretAccessKey,
		"session_token": token}, places)
}

// TestAccDockerManifestMount_noFUSE: on a Docker workspace without the FUSE
// grant a manifest's mount entry is a warning at plan (a destroy plan must
// stay possible) and fails the apply before any entry is written; with the
// grant it mounts, files read back by exec.
func TestAccDockerManifestMount_noFUSE(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	srv := fidelityMountServer(t)
	body := fmt.Sprintf(`
resource "sandbox_manifest" "m" {
  workspace_id  = sandbox_workspace.ws.id
  manifest_json = %s
  %s
}
`, hclString(`{"entries": {"notes.txt": {"type": "file", "content": "n"}, `+s3ManifestEntry(srv, "")+`}}`), s3ManifestCreds)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{Config: dockerMountConfig(env, false, ""), ConfigVariables: s3Vars(srv)},
			{
				Config: dockerMountConfig(env, false, body), ConfigVariables: s3Vars(srv),
				ExpectError: errRe("has no FUSE grant; an in-container rclone mount needs /dev/fuse and CAP_SYS_ADMIN: set fuse = true"),
			},
			{
				Config: dockerMountConfig(env, false, ""), ConfigVariables: s3Vars(srv),
				Check: env.expectSh("ls -A /workspace | grep -v '^.sandbox' | wc -l", "0"),
			},
			{
				Config: dockerMountConfig(env, true, body), ConfigVariables: s3Vars(srv),
				Check: resource.ComposeTestCheckFunc(
					env.expectSh("cat /workspace/data/hello.txt /workspace/notes.txt", "hello from the bucket\nn"),
					env.expectSh("grep -c ' /workspace/data fuse.rclone ro,' /proc/mounts", "1"),
					resource.TestCheckResourceAttr("sandbox_manifest.m", "entries.data.mounted", "true"),
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
		},
	})
}
