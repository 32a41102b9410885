package provider

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/fakes3"
)

// identityConfig is a local workspace (default root under the working
// directory's .sandbox) with a file, a copied directory, a command and an
// S3 mount, and a docker workspace with a file and a command.
func identityConfig(srv *fakes3.Server) string {
	return requiredSandbox + fmt.Sprintf(`
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
provider "sandbox" {
  working_dir = abspath(path.root)
}

resource "sandbox_workspace" "local" {
  local {}
  environment = { GREETING = "hi" }
}
resource "sandbox_file" "local" {
  workspace_id = sandbox_workspace.local.id
  path         = "notes/hello.txt"
  content      = "hello\n"
}
resource "sandbox_local_dir" "skills" {
  workspace_id = sandbox_workspace.local.id
  path         = "skills"
  source       = "skills"
}
resource "sandbox_command" "local" {
  workspace_id = sandbox_workspace.local.id
  shell        = "echo \"$GREETING\" > ran.txt"
}
resource "sandbox_s3_mount" "data" {
  workspace_id           = sandbox_workspace.local.id
  path                   = "data"
  bucket                 = %q
  endpoint_url           = %q
  s3_provider            = "Other"
  access_key_id_wo       = var.key_id
  secret_access_key_wo   = var.secret
  credentials_wo_version = 1
  in_container {
    rclone { mode = "fuse" }
  }
}

resource "sandbox_workspace" "docker" {
  docker {
    image       = %q
    pull_policy = "never"
  }
  exposed_ports = [8080]
}
resource "sandbox_file" "docker" {
  workspace_id = sandbox_workspace.docker.id
  path         = "conf/app.toml"
  content      = "x = 1\n"
}
resource "sandbox_command" "docker" {
  workspace_id = sandbox_workspace.docker.id
  shell        = "echo ran >> ran.txt"
}
`, srv.Bucket, srv.Endpoint, dockertest.Image)
}

// checkout writes the configuration (and the copied source) into a new
// empty directory: what a fresh clone of the repository holds.
func checkout(t *testing.T, cfg string) string {
	t.Helper()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg), 0o644))
	must(t, os.MkdirAll(filepath.Join(dir, "skills", "tools"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "skills", "a.md"), []byte("# a\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "skills", "tools", "run.sh"), []byte("#!/bin/sh\n"), 0o755))
	return dir
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	must(t, err)
	must(t, os.MkdirAll(filepath.Dir(to), 0o755))
	must(t, os.WriteFile(to, b, 0o600))
}

// planNoChanges runs plan -detailed-exitcode and fails unless it exits 0.
func planNoChanges(t *testing.T, c *cliRun, what string, args ...string) {
	t.Helper()
	code := c.exitCode("plan-"+strings.ReplaceAll(what, " ", "-")+".log", append([]string{"plan", "-input=false", "-detailed-exitcode", "-no-color"}, args...)...)
	if code != 0 {
		t.Fatalf("%s: plan exited %d, want 0 (no changes):\n%s", what, code, c.last)
	}
}

// TestAccStateIdentity_checkoutsAndProcesses applies in one directory and
// plans from others with the same state: a fresh checkout with no
// .sandbox, a provider started by hand with -debug from yet another
// directory, and a state file kept outside the working directory. None may
// plan a change; the second checkout's destroy removes what the first made.
func TestAccStateIdentity_checkoutsAndProcesses(t *testing.T) {
	t.Parallel()
	dockertest.Require(t)
	fakes3.RequireFUSE(t)
	srv := fakes3.Start(t, "bucket", map[string]string{"in-bucket.txt": "from s3"})
	cfg := identityConfig(srv)

	a := checkout(t, cfg)
	ca := newCLIRun(t, a)
	ca.env = append(ca.env, "TF_VAR_key_id="+srv.AccessKeyID, "TF_VAR_secret="+srv.SecretAccessKey)
	t.Cleanup(func() { fakes3.UnmountAllUnder(t, a) })
	ca.run("apply.log", "apply", "-input=false", "-auto-approve", "-no-color")
	st := readState(t, filepath.Join(a, "terraform.tfstate"))
	localRoot := st.attr(t, "sandbox_workspace.local", "root")
	if !strings.HasPrefix(localRoot, filepath.Join(a, ".sandbox")+"/") {
		t.Fatalf("local root %s is not under the first checkout's .sandbox", localRoot)
	}
	if b, err := os.ReadFile(filepath.Join(localRoot, "ran.txt")); err != nil || string(b) != "hi\n" {
		t.Fatalf("command output in the local workspace = %q, %v", b, err)
	}
	// The provider keeps nothing but the workspace roots.
	entries, err := os.ReadDir(filepath.Join(a, ".sandbox"))
	must(t, err)
	if len(entries) != 1 || filepath.Join(a, ".sandbox", entries[0].Name()) != localRoot {
		t.Fatalf(".sandbox holds %v, want only the workspace root", entries)
	}

	// A fresh checkout with the same state: no .sandbox, nothing cached.
	b := checkout(t, cfg)
	copyFile(t, filepath.Join(a, "terraform.tfstate"), filepath.Join(b, "terraform.tfstate"))
	cb := newCLIRun(t, b)
	cb.env = append(cb.env, "TF_VAR_key_id="+srv.AccessKeyID, "TF_VAR_secret="+srv.SecretAccessKey)
	planNoChanges(t, cb, "second checkout")
	if _, err := os.Stat(filepath.Join(b, ".sandbox")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the plan created %s/.sandbox: %v", b, err)
	}

	// The provider started by hand, from another directory.
	reattach := startDebugProvider(t, cb.pluginBinary())
	debugRun := &cliRun{t: t, dir: b, bin: cb.bin, env: append(append([]string{}, cb.env...), "TF_REATTACH_PROVIDERS="+reattach), mustSucceed: true}
	planNoChanges(t, debugRun, "debug provider")

	// State kept outside the working directory, and a third checkout.
	c := checkout(t, cfg)
	elsewhere := filepath.Join(t.TempDir(), "state", "sandbox.tfstate")
	copyFile(t, filepath.Join(a, "terraform.tfstate"), elsewhere)
	cc := newCLIRun(t, c)
	cc.env = append(cc.env, "TF_VAR_key_id="+srv.AccessKeyID, "TF_VAR_secret="+srv.SecretAccessKey)
	planNoChanges(t, cc, "state elsewhere", "-state="+elsewhere)

	// The second checkout destroys what the first created.
	cid := st.attr(t, "sandbox_workspace.docker", "container_id")
	cb.run("destroy.log", "destroy", "-input=false", "-auto-approve", "-no-color")
	if _, err := os.Lstat(localRoot); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("local workspace %s survived the destroy from the second checkout: %v", localRoot, err)
	}
	if out, err := exec.Command("docker", "inspect", cid).CombinedOutput(); err == nil {
		t.Fatalf("container %s survived the destroy from the second checkout:\n%.200s", cid, out)
	}
}

// startDebugProvider starts the provider with -debug in a directory of its
// own and returns its TF_REATTACH_PROVIDERS value (keyed for OpenTofu's
// registry host when the suite runs OpenTofu).
func startDebugProvider(t *testing.T, bin string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "-debug")
	cmd.Dir = t.TempDir()
	out, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	re := regexp.MustCompile(`TF_REATTACH_PROVIDERS='(.+)'`)
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the debug provider exited without printing TF_REATTACH_PROVIDERS")
			}
			if m := re.FindStringSubmatch(l); m != nil {
				go func() {
					for range lines { //nolint:revive // drain
					}
				}()
				v := m[1]
				if os.Getenv("TF_ACC_PROVIDER_HOST") == "registry.opentofu.org" {
					v = strings.Replace(v, "registry.terraform.io/", "registry.opentofu.org/", 1)
				}
				return v
			}
		case <-deadline:
			t.Fatal("the debug provider printed no TF_REATTACH_PROVIDERS within 30s")
		}
	}
}
