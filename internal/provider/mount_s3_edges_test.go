package provider

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/fakes3"
)

// TestAccS3Mount_localEdges covers what a mount must survive or refuse on
// a local workspace: a killed helper, wrong keys, a busy mount at destroy,
// a non-empty mount point, and mount paths outside the workspace.
func TestAccS3Mount_localEdges(t *testing.T) {
	fakes3.LookRclone(t)
	fakes3.RequireFUSE(t)
	files := map[string]string{"hello.txt": "hello from the bucket\n", "dir/nested.txt": "nested object\n"}
	srv := fakes3.Start(t, "bucket", files)
	env := newTestEnv(t)
	t.Cleanup(func() { fakes3.UnmountAllUnder(t, env.base) })
	var busy *exec.Cmd
	t.Cleanup(func() {
		if busy != nil && busy.Process != nil {
			_ = busy.Process.Kill()
			_ = busy.Wait()
		}
	})
	mountDir := func() string { return filepath.Join(env.wsRoot(), "data") }
	wrongKeys := config.Variables{"key_id": config.StringVariable("AKIDWRONGWRONGWRONG"),
		"secret": config.StringVariable("wrong-secret-value-0123")}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				// Wrong keys: the mount is listed once after mounting, so
				// the apply fails, the mount is removed again, and the
				// error carries neither key.
				Config:          s3MountConfig(env, srv, ""),
				ConfigVariables: wrongKeys,
				ExpectError:     regexp.MustCompile(`(?s)does not answer.*check the\s+bucket, endpoint and credentials`),
			},
			{
				Config:          s3MountConfig(env, srv, ""),
				ConfigVariables: s3Vars(srv),
				PreConfig: func() {
					if ok, _, _ := fakes3.Mounted(mountDir()); ok {
						t.Fatalf("the failed mount was left mounted")
					}
				},
				Check: checkMountedFiles(env, files),
			},
			{
				// A second mount at the same path is refused at apply: the
				// path is already a mount point.
				Config: s3MountConfig(env, srv, "") + fmt.Sprintf(`
resource "sandbox_s3_mount" "dup" {
  workspace_id = sandbox_workspace.ws.id
  path         = "data"
  bucket       = %q
  endpoint_url = %q
  s3_provider  = "Other"
  prefix       = "dir"
  in_container {
    rclone {}
  }
}
`, srv.Bucket, srv.Endpoint),
				ConfigVariables: s3Vars(srv),
				ExpectError:     regexp.MustCompile(`(?s)is already a mount point.*two mounts cannot share a path`),
			},
			{
				// The helper is killed (SIGKILL): the mount point stays
				// listed but answers "Transport endpoint is not connected";
				// the next plan replaces the mount.
				PreConfig: func() {
					pids := fakes3.RclonePIDs(mountDir())
					if len(pids) == 0 {
						t.Fatalf("no rclone process serves %s", mountDir())
					}
					for _, pid := range pids {
						_ = syscall.Kill(pid, syscall.SIGKILL)
					}
					for i := 0; i < 100; i++ { // the connection closes when the process is gone
						if exec.Command("ls", "-d", "--", mountDir()).Run() != nil {
							return
						}
						time.Sleep(50 * time.Millisecond)
					}
					t.Fatalf("the mount still answers after its helper was killed")
				},
				Config:          s3MountConfig(env, srv, ""),
				ConfigVariables: s3Vars(srv),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("sandbox_s3_mount.data", plancheck.ResourceActionDestroyBeforeCreate)},
				},
				Check: checkMountedFiles(env, files),
			},
			{
				// Busy: a process works inside the mount. Destroying the
				// mount fails and leaves mount, helper and config alone.
				PreConfig: func() {
					busy = exec.Command("sleep", "300")
					busy.Dir = filepath.Join(mountDir(), "dir")
					if err := busy.Start(); err != nil {
						t.Fatalf("starting a process inside the mount: %v", err)
					}
				},
				Config:      env.config(""),
				ExpectError: regexp.MustCompile(`(?s)still mounted after 6 unmount attempts.*stop what uses the mount`),
			},
			{
				PreConfig: func() {
					if ok, _, _ := fakes3.Mounted(mountDir()); !ok {
						t.Fatalf("the busy mount was unmounted anyway")
					}
					if pids := fakes3.RclonePIDs(mountDir()); len(pids) == 0 {
						t.Fatalf("the busy mount's helper was stopped")
					}
					confs, _ := filepath.Glob(filepath.Join(env.wsRoot(), ".sandbox-rclone-config", "*", "*.conf"))
					if len(confs) != 1 {
						t.Fatalf("the busy mount's config was removed: %v", confs)
					}
					_ = busy.Process.Kill()
					_ = busy.Wait()
					busy = nil
				},
				Config: env.config(""),
				Check: func(*terraform.State) error {
					if ok, _, _ := fakes3.Mounted(mountDir()); ok {
						return fmt.Errorf("still mounted")
					}
					return nil
				},
			},
			{
				// A mount point with content is refused: mounting would hide it.
				PreConfig: func() {
					if err := os.MkdirAll(mountDir(), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(mountDir(), "precious.txt"), []byte("keep"), 0o644); err != nil {
						t.Fatal(err)
					}
				},
				Config:          s3MountConfig(env, srv, ""),
				ConfigVariables: s3Vars(srv),
				ExpectError:     regexp.MustCompile(`(?s)is a directory with content: mounting over it would hide`),
			},
			{
				PreConfig: func() {
					b, err := os.ReadFile(filepath.Join(mountDir(), "precious.txt"))
					if err != nil || string(b) != "keep" {
						t.Fatalf("the refused mount touched precious.txt: %q, %v", b, err)
					}
					if ok, _, _ := fakes3.Mounted(mountDir()); ok {
						t.Fatalf("the refused mount was mounted")
					}
				},
				// On a local workspace the helper runs on the host: a
				// mount_path outside the root, or the root itself, fails
				// the plan.
				Config:          s3MountConfig(env, srv, `mount_path = "/etc"`),
				ConfigVariables: s3Vars(srv),
				PlanOnly:        true,
				ExpectError:     regexp.MustCompile(`(?s)outside the workspace root.*would\s+mount\s+over\s+a\s+host\s+directory`),
			},
			{
				Config:          s3MountConfig(env, srv, `mount_path = "."`),
				ConfigVariables: s3Vars(srv),
				PlanOnly:        true,
				ExpectError:     regexp.MustCompile(`(?s)resolves to the workspace\s+root itself`),
			},
		},
		CheckDestroy: func(*terraform.State) error {
			if n := srv.Writes(); n != 0 {
				return fmt.Errorf("the bucket saw %d writes", n)
			}
			return nil
		},
	})
}

// TestAccS3Mount_samePathInParallel declares two mounts at one path,
// which Terraform creates at the same time: exactly one mounts, the other
// fails, and destroying what was made leaves nothing mounted.
func TestAccS3Mount_samePathInParallel(t *testing.T) {
	fakes3.LookRclone(t)
	fakes3.RequireFUSE(t)
	srv := fakes3.Start(t, "bucket", map[string]string{"hello.txt": "hello\n"})
	env := newTestEnv(t)
	t.Cleanup(func() { fakes3.UnmountAllUnder(t, env.base) })
	two := s3MountConfig(env, srv, "") + fmt.Sprintf(`
resource "sandbox_s3_mount" "twin" {
  workspace_id         = sandbox_workspace.ws.id
  path                 = "data"
  bucket               = %q
  endpoint_url         = %q
  s3_provider          = "Other"
  access_key_id_wo     = var.key_id
  secret_access_key_wo = var.secret
  in_container {
    rclone {}
  }
}
`, srv.Bucket, srv.Endpoint)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config:          two,
				ConfigVariables: s3Vars(srv),
				ExpectError:     regexp.MustCompile(`(?s)is already a mount point.*two mounts cannot share a path`),
			},
			{
				PreConfig: func() {
					dir := filepath.Join(env.wsRoot(), "data")
					if pids := fakes3.RclonePIDs(dir); len(pids) != 1 {
						t.Fatalf("%d rclone helpers serve %s, want exactly 1", len(pids), dir)
					}
					if b, err := os.ReadFile(filepath.Join(dir, "hello.txt")); err != nil || string(b) != "hello\n" {
						t.Fatalf("the mount that won does not answer: %q %v", b, err)
					}
				},
				Config: env.config(""),
				Check: func(*terraform.State) error {
					if ok, _, _ := fakes3.Mounted(filepath.Join(env.wsRoot(), "data")); ok {
						return fmt.Errorf("still mounted")
					}
					return nil
				},
			},
		},
	})
}
