package provider

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/fakes3"
)

// s3MountConfig is a local workspace with an S3 bucket of srv mounted at
// "data" with the rclone FUSE pattern; the keys come from variables.
func s3MountConfig(env *testEnv, srv *fakes3.Server, extra string) string {
	return env.config(fmt.Sprintf(`
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

resource "sandbox_s3_mount" "data" {
  workspace_id           = sandbox_workspace.ws.id
  path                   = "data"
  bucket                 = %q
  endpoint_url           = %q
  s3_provider            = "Other"
  access_key_id_wo       = var.key_id
  secret_access_key_wo   = var.secret
  credentials_wo_version = 1
  %s
  in_container {
    rclone { mode = "fuse" }
  }
}
`, srv.Bucket, srv.Endpoint, extra))
}

func s3Vars(srv *fakes3.Server) config.Variables {
	return config.Variables{"key_id": config.StringVariable(srv.AccessKeyID), "secret": config.StringVariable(srv.SecretAccessKey)}
}

// checkMountedFiles reads the bucket's files back through the mount.
func checkMountedFiles(env *testEnv, files map[string]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		dir := filepath.Join(env.wsRoot(), "data")
		if ok, _, err := fakes3.Mounted(dir); err != nil || !ok {
			return fmt.Errorf("%s is not a mount point (err %w)", dir, err)
		}
		for name, want := range files {
			got, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				return fmt.Errorf("reading %s through the mount: %w", name, err)
			}
			if string(got) != want {
				return fmt.Errorf("%s through the mount = %q, want %q", name, got, want)
			}
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if strings.Join(names, ",") != "dir,hello.txt" {
			return fmt.Errorf("listing of the mount = %v, want [dir hello.txt]", names)
		}
		return nil
	}
}

// checkReadOnlyMount proves a write through the read-only mount is refused
// and never reaches the server.
func checkReadOnlyMount(env *testEnv, srv *fakes3.Server) resource.TestCheckFunc {
	return func(*terraform.State) error {
		err := os.WriteFile(filepath.Join(env.wsRoot(), "data", "new.txt"), []byte("x"), 0o644)
		if err == nil || !errors.Is(err, syscall.EROFS) {
			return fmt.Errorf("a write into the read-only mount gave %w, want EROFS", err)
		}
		if n := srv.Writes(); n != 0 {
			return fmt.Errorf("the server saw %d writes through a read-only mount", n)
		}
		return nil
	}
}

// checkRcloneConfig finds the generated rclone config: owner-only, under
// .sandbox-rclone-config/<session_id>/, holding the key id (it is the
// helper's input, inside the workspace, by design).
func checkRcloneConfig(env *testEnv, srv *fakes3.Server) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		sid := s.RootModule().Resources["sandbox_s3_mount.data"].Primary.Attributes["session_id"]
		if len(sid) != 32 {
			return fmt.Errorf("session_id %q is not 32 hex digits", sid)
		}
		conf := filepath.Join(env.wsRoot(), ".sandbox-rclone-config", sid, "sandbox_s3_"+sid+".conf")
		fi, err := os.Stat(conf)
		if err != nil {
			return err
		}
		if fi.Mode().Perm() != 0o600 {
			return fmt.Errorf("%s has mode %04o, want 0600", conf, fi.Mode().Perm())
		}
		b, err := os.ReadFile(conf)
		if err != nil {
			return err
		}
		if !strings.Contains(string(b), "access_key_id = "+srv.AccessKeyID+"\n") || !strings.Contains(string(b), "provider = Other\n") {
			return fmt.Errorf("generated config lacks the expected lines:\n%s", b)
		}
		return nil
	}
}

func TestAccS3Mount_rcloneLocal(t *testing.T) {
	t.Parallel()
	fakes3.LookRclone(t)
	fakes3.RequireFUSE(t)
	files := map[string]string{"hello.txt": "hello from the bucket\n", "dir/nested.txt": "nested object\n"}
	srv := fakes3.Start(t, "bucket", files)
	env := newTestEnv(t)
	t.Cleanup(func() { fakes3.UnmountAllUnder(t, env.base) })
	var mountDir, sid string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config:          s3MountConfig(env, srv, ""),
				ConfigVariables: s3Vars(srv),
				Check: resource.ComposeTestCheckFunc(
					checkMountedFiles(env, files),
					checkReadOnlyMount(env, srv),
					checkRcloneConfig(env, srv),
					resource.TestCheckResourceAttr("sandbox_s3_mount.data", "read_only", "true"),
					resource.TestCheckResourceAttrSet("sandbox_s3_mount.data", "manifest_entry"),
					func(s *terraform.State) error {
						a := s.RootModule().Resources["sandbox_s3_mount.data"].Primary.Attributes
						mountDir, sid = a["absolute_path"], a["session_id"]
						if mountDir != filepath.Join(env.wsRoot(), "data") {
							return fmt.Errorf("absolute_path = %q", mountDir)
						}
						return nil
					},
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// The mount goes away out of band: the next plan replaces it,
				// removing what the old mount generated, and mounts it again
				// with the write-only keys from the configuration.
				PreConfig: func() {
					if out, err := exec.Command("fusermount3", "-u", mountDir).CombinedOutput(); err != nil {
						t.Fatalf("unmounting out of band: %v: %s", err, out)
					}
				},
				Config:          s3MountConfig(env, srv, ""),
				ConfigVariables: s3Vars(srv),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("sandbox_s3_mount.data", plancheck.ResourceActionDestroyBeforeCreate)},
				},
				Check: resource.ComposeTestCheckFunc(
					checkMountedFiles(env, files),
					func(s *terraform.State) error {
						old := sid
						sid = s.RootModule().Resources["sandbox_s3_mount.data"].Primary.Attributes["session_id"]
						if sid == old {
							return fmt.Errorf("the re-created mount kept session_id %s", sid)
						}
						if _, err := os.Stat(filepath.Join(env.wsRoot(), ".sandbox-rclone-config", old)); !os.IsNotExist(err) {
							return fmt.Errorf("the replaced mount's rclone config directory survived: %w", err)
						}
						return nil
					},
				),
			},
			{
				// The mount resource alone is destroyed: unmounted, its
				// rclone daemon gone, its generated config removed, while the
				// workspace stays.
				Config: env.config(""),
				Check: func(*terraform.State) error {
					if ok, _, _ := fakes3.Mounted(mountDir); ok {
						return fmt.Errorf("%s is still mounted after destroy", mountDir)
					}
					if pids := fakes3.RclonePIDs(mountDir); len(pids) > 0 {
						return fmt.Errorf("rclone processes %v outlived destroy", pids)
					}
					if _, err := os.Stat(filepath.Join(env.wsRoot(), ".sandbox-rclone-config", sid)); !os.IsNotExist(err) {
						return fmt.Errorf("the generated rclone config directory survived destroy: %w", err)
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
