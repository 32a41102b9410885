package provider

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/fakes3"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/volplugin"
)

// leakConfig declares a mount of every type that carries write-only
// credentials, every secret attribute set: S3, GCS (HMAC) and R2 mounted
// for real with rclone in a local workspace, Azure Blob and Box as Docker
// volumes of a recording volume driver.
const leakConfig = `
terraform {
  required_providers {
    sandbox = { source = "agentsandbox/sandbox" }
  }
}

provider "sandbox" {
  local_base_dir = %q
}

variable "secrets" {
  type      = map(string)
  sensitive = true
  ephemeral = true
}

variable "credentials_version" {
  type = number
}

resource "sandbox_workspace" "ws" {
  local {}
}

resource "sandbox_s3_mount" "s3" {
  workspace_id           = sandbox_workspace.ws.id
  path                   = "s3"
  bucket                 = "bucket"
  endpoint_url           = %q
  s3_provider            = "Other"
  access_key_id_wo       = var.secrets.s3_key
  secret_access_key_wo   = var.secrets.s3_secret
  session_token_wo       = var.secrets.s3_token
  credentials_wo_version = var.credentials_version
  in_container {
    rclone {}
  }
}

resource "sandbox_gcs_mount" "gcs" {
  workspace_id                   = sandbox_workspace.ws.id
  path                           = "gcs"
  bucket                         = "bucket"
  endpoint_url                   = %q
  access_id_wo                   = var.secrets.gcs_id
  secret_access_key_wo           = var.secrets.gcs_secret
  service_account_credentials_wo = var.secrets.gcs_sa
  access_token_wo                = var.secrets.gcs_token
  credentials_wo_version         = var.credentials_version
  in_container {
    rclone {}
  }
}

resource "sandbox_r2_mount" "r2" {
  workspace_id           = sandbox_workspace.ws.id
  path                   = "r2"
  bucket                 = "bucket"
  account_id             = "0123456789abcdef"
  custom_domain          = %q
  access_key_id_wo       = var.secrets.r2_key
  secret_access_key_wo   = var.secrets.r2_secret
  credentials_wo_version = var.credentials_version
  in_container {
    rclone {}
  }
}

resource "sandbox_azure_blob_mount" "azure" {
  path                   = "azure"
  account                = "acct"
  container              = "reports"
  account_key_wo         = var.secrets.az_key
  identity_client_id_wo  = var.secrets.az_identity
  credentials_wo_version = var.credentials_version
  docker_volume {
    driver = "rclone"
  }
}

resource "sandbox_box_mount" "box" {
  path                     = "box"
  client_secret_wo         = var.secrets.box_client_secret
  access_token_wo          = var.secrets.box_access_token
  token_wo                 = var.secrets.box_token
  config_credentials_wo    = var.secrets.box_config
  credentials_wo_version   = var.credentials_version
  docker_volume {
    driver = "rclone"
  }
}
`

func leakSecret(t *testing.T, what string) string {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "leak-" + what + "-" + hex.EncodeToString(b)
}

// TestAccMount_noSecretLeaks applies, re-plans and destroys mounts with
// every secret attribute set through the real CLI and the built provider,
// with TF_LOG=trace, and then looks for every secret value in the state,
// in `show -json` of a saved plan, in the logs and in the command lines of
// every process: none may appear. Positive controls prove each secret did
// reach where it belongs (the generated rclone configs, the volume driver).
func TestAccMount_noSecretLeaks(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	fakes3.LookRclone(t)
	fakes3.RequireFUSE(t)
	dockertest.Require(t)
	files := map[string]string{"object.txt": "object\n"}
	s3srv, gcssrv, r2srv := fakes3.Start(t, "bucket", files), fakes3.Start(t, "bucket", files), fakes3.Start(t, "bucket", files)
	plugin := volplugin.Start(t, "rclone")

	secrets := map[string]string{
		"s3_key": s3srv.AccessKeyID, "s3_secret": s3srv.SecretAccessKey, "s3_token": leakSecret(t, "s3-token"),
		"gcs_id": gcssrv.AccessKeyID, "gcs_secret": gcssrv.SecretAccessKey, "gcs_sa": `{"type":"service_account","private_key":"` + leakSecret(t, "gcs-sa") + `"}`,
		"gcs_token": leakSecret(t, "gcs-token"), "r2_key": r2srv.AccessKeyID, "r2_secret": r2srv.SecretAccessKey,
		"az_key": leakSecret(t, "az-key"), "az_identity": leakSecret(t, "az-identity"),
		"box_client_secret": leakSecret(t, "box-client-secret"), "box_access_token": leakSecret(t, "box-access-token"),
		"box_token": `{"access_token":"` + leakSecret(t, "box-token") + `"}`, "box_config": leakSecret(t, "box-config"),
	}
	dir := t.TempDir()
	base := filepath.Join(dir, "base")
	cfg := fmt.Sprintf(leakConfig, base, s3srv.Endpoint, gcssrv.Endpoint, r2srv.Endpoint)
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cli := newCLIRun(t, dir)
	var secretVars []string
	for k, v := range secrets {
		secretVars = append(secretVars, fmt.Sprintf("%q = %q", k, v))
	}
	cli.env = append(cli.env, "TF_VAR_secrets={"+strings.Join(secretVars, ", ")+"}")

	applied := true
	cli.cleanupMounts(dir, &applied, "-var", "credentials_version=1")
	cli.run("apply.log", "apply", "-auto-approve", "-input=false", "-var", "credentials_version=1")

	// Positive controls: the secrets reached the helper configs and the
	// volume driver, so looking for them elsewhere is meaningful.
	confs, confText := rcloneConfigs(t, base)
	for _, k := range []string{"s3_secret", "s3_token", "gcs_secret", "r2_secret"} {
		if !strings.Contains(confText, secrets[k]) {
			t.Errorf("positive control: %s is not in the generated rclone configs %v", k, confs)
		}
	}
	var driverOpts bytes.Buffer
	for _, n := range plugin.Names() {
		o, _ := plugin.Options(n)
		fmt.Fprintln(&driverOpts, o)
	}
	for _, k := range []string{"az_key", "box_client_secret", "box_access_token", "box_config"} {
		if !strings.Contains(driverOpts.String(), secrets[k]) {
			t.Errorf("positive control: %s did not reach the volume driver's options", k)
		}
	}
	procArgs := processArguments(t)

	// A new credentials version: the saved plan replaces every mount.
	cli.run("plan.log", "plan", "-input=false", "-out=rotate.tfplan", "-var", "credentials_version=2")
	planJSON := cli.run("show.log", "show", "-json", "rotate.tfplan")
	if !strings.Contains(planJSON, `"sandbox_box_mount"`) || !strings.Contains(planJSON, `"delete"`) {
		t.Fatalf("the rotation plan does not replace the mounts:\n%.2000s", planJSON)
	}
	stateJSON := cli.run("show-state.log", "show", "-json")
	cli.run("destroy.log", "destroy", "-auto-approve", "-input=false", "-var", "credentials_version=1")
	applied = false

	places := map[string]string{"plan JSON": planJSON, "state JSON": stateJSON, "process arguments": procArgs,
		"command output": cli.out.String()}
	cli.readPlaces(places, "sandbox_s3_mount", "terraform.tfstate", "terraform.tfstate.backup", "apply.log", "plan.log",
		"show.log", "show-state.log", "destroy.log")
	noLeaks(t, secrets, places)
	if n := len(plugin.Names()); n != 0 {
		t.Errorf("%d volumes survived destroy", n)
	}
}

// processArguments returns the command line of every process.
func processArguments(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if c, err := os.ReadFile(p); err == nil {
			b.Write(bytes.ReplaceAll(c, []byte{0}, []byte{' '}))
			b.WriteByte('\n')
		}
	}
	if !strings.Contains(b.String(), "rclone mount") {
		t.Fatalf("no rclone mount process is running: the process check would prove nothing")
	}
	return b.String()
}

// cliRun runs the real CLI (TF_ACC_TERRAFORM_PATH or terraform on PATH)
// in a directory against the provider built from this module, with
// TF_LOG=trace into a log file per command.
type cliRun struct {
	t   *testing.T
	dir string
	bin string
	env []string
	// out collects every command's standard output and error.
	out strings.Builder
	// mustSucceed makes a failing command fail the test (the default).
	mustSucceed bool
	// plugin is the provider binary the CLI runs.
	plugin string
	// last is the standard output and error of the last command, lastCode
	// its exit code.
	last     string
	lastCode int
}

func newCLIRun(t *testing.T, dir string) *cliRun {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test (runs the terraform CLI): set TF_ACC=1")
	}
	bin := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("terraform"); err != nil {
			t.Fatalf("no terraform on PATH and no TF_ACC_TERRAFORM_PATH: %v", err)
		}
	}
	pluginDir := filepath.Join(t.TempDir(), "plugins")
	build := exec.Command("go", "build", "-o", filepath.Join(pluginDir, "terraform-provider-sandbox"), ".")
	build.Dir = filepath.Join("..", "..")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the provider: %v\n%s", err, out)
	}
	rc := filepath.Join(dir, ".terraformrc")
	overrides := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    %q = %q\n    %q = %q\n  }\n  direct {}\n}\n",
		"registry.terraform.io/agentsandbox/sandbox", pluginDir, "registry.opentofu.org/agentsandbox/sandbox", pluginDir)
	if err := os.WriteFile(rc, []byte(overrides), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "TF_LOG=trace", "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
	return &cliRun{t: t, dir: dir, bin: bin, env: env, mustSucceed: true, plugin: filepath.Join(pluginDir, "terraform-provider-sandbox")}
}

// run runs one command with its trace log in dir/logName and returns its
// standard output; a failure fails the test with the output.
func (c *cliRun) run(logName string, args ...string) string {
	c.t.Helper()
	cmd := exec.Command(c.bin, append([]string{}, args...)...)
	cmd.Dir = c.dir
	cmd.Env = append(append([]string{}, c.env...), "TF_LOG_PATH="+filepath.Join(c.dir, logName))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	c.out.WriteString(stdout.String())
	c.out.WriteString(stderr.String())
	c.last, c.lastCode = stdout.String()+stderr.String(), exitStatus(err)
	if err != nil && !c.mustSucceed {
		c.t.Logf("%s %s: %v\n%s", filepath.Base(c.bin), strings.Join(args, " "), err, stderr.String())
	} else if err != nil {
		c.t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", filepath.Base(c.bin), strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}
