package provider

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func dirConfig(env *testEnv, p, perms, extra string) string {
	return env.config(fmt.Sprintf(`
resource "sandbox_dir" "d" {
  workspace_id = sandbox_workspace.ws.id
  path         = %q
  permissions  = %q
  %s
}
`, p, perms, extra))
}

func checkDirMode(env *testEnv, rel string, mode os.FileMode) resource.TestCheckFunc {
	return func(*terraform.State) error {
		p := filepath.Join(env.wsRoot(), rel)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a directory", p)
		}
		if fi.Mode().Perm() != mode {
			return fmt.Errorf("%s has mode %04o, want %04o", p, fi.Mode().Perm(), mode)
		}
		return nil
	}
}

func TestAccDir_lifecycle(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	daemon, err := user.LookupGroup("daemon")
	if err != nil {
		t.Fatalf("the test needs the standard 'daemon' group: %v", err)
	}
	daemonGid, _ := strconv.Atoi(daemon.Gid)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: dirConfig(env, "./work//logs", "drwxr-x---", ""),
				Check:  checkDirMode(env, "work/logs", 0o750),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("sandbox_dir.d", tfjsonpath.New("permissions"), knownvalue.StringExact("drwxr-x---")),
					statecheck.ExpectKnownValue("sandbox_dir.d", tfjsonpath.New("absolute_path"), knownvalue.StringRegexp(regexp.MustCompile(`/work/logs$`))),
					statecheck.ExpectKnownValue("sandbox_dir.d", tfjsonpath.New("ephemeral"), knownvalue.Bool(false)),
				},
			},
			{
				// Same bits, other notation: Terraform records the new
				// spelling (an in-place update that changes nothing on
				// disk), and no diff follows.
				Config: dirConfig(env, "./work//logs", "0750", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("sandbox_dir.d", plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: checkDirMode(env, "work/logs", 0o750),
			},
			{
				// New mode and a group: updated in place.
				Config: dirConfig(env, "./work//logs", "0705", `group = "daemon"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("sandbox_dir.d", plancheck.ResourceActionUpdate)},
				},
				Check: resource.ComposeTestCheckFunc(
					checkDirMode(env, "work/logs", 0o705),
					func(*terraform.State) error {
						gid, err := fileGid(filepath.Join(env.wsRoot(), "work/logs"))
						if err != nil {
							return err
						}
						if gid != daemonGid {
							return fmt.Errorf("group is %d, want daemon (%d)", gid, daemonGid)
						}
						return nil
					},
				),
			},
			{
				// Mode and group changed out of band: the plan restores both.
				PreConfig: func() {
					p := filepath.Join(env.wsRoot(), "work/logs")
					if err := os.Chmod(p, 0o777); err != nil {
						t.Fatal(err)
					}
					if err := os.Lchown(p, -1, 0); err != nil {
						t.Fatal(err)
					}
				},
				Config: dirConfig(env, "./work//logs", "0705", `group = "daemon"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("sandbox_dir.d", plancheck.ResourceActionUpdate)},
				},
				Check: checkDirMode(env, "work/logs", 0o705),
			},
			{
				// Deleted out of band: planned for creation.
				PreConfig: func() {
					if err := os.RemoveAll(filepath.Join(env.wsRoot(), "work/logs")); err != nil {
						t.Fatal(err)
					}
				},
				Config: dirConfig(env, "./work//logs", "0705", `group = "daemon"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("sandbox_dir.d", plancheck.ResourceActionCreate)},
				},
				Check: checkDirMode(env, "work/logs", 0o705),
			},
			{
				ResourceName:      "sandbox_dir.d",
				ImportState:       true,
				ImportStateVerify: true,
				// The import ID normalises the path; the configured
				// spelling, description and group are configuration.
				ImportStateVerifyIgnore: []string{"path", "group", "permissions", "manifest_entry"},
			},
			{
				// A new path replaces the directory.
				Config: dirConfig(env, "work/cache", "0700", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("sandbox_dir.d", plancheck.ResourceActionReplace)},
				},
				Check: resource.ComposeTestCheckFunc(
					checkDirMode(env, "work/cache", 0o700),
					func(*terraform.State) error {
						if _, err := os.Lstat(filepath.Join(env.wsRoot(), "work/logs")); !os.IsNotExist(err) {
							return fmt.Errorf("the replaced directory work/logs is still there (%w)", err)
						}
						return nil
					},
				),
			},
		},
	})
}

func TestAccDir_invalid(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	cases := []struct {
		path, perms string
		want        string
	}{
		{"/etc/x", "0755", `manifest path must be relative: /etc/x`},
		{"a/../../x", "0755", `manifest path must not escape root: a/../../x`},
		{`C:\tmp\x`, "0755", `manifest path must be relative: C:/tmp/x`},
		{"a/../b", "0755", `reason: escape_root`},
		{"ok", "-rw-r--r-", `invalid permissions string length: '-rw-r--r-'`},
		{"ok", "lrwxrwxrwx", `invalid permissions type: 'lrwxrwxrwx'`},
		{"ok", "0999", `"0999"`},
		{"", "0755", `names the workspace root itself`},
	}
	for _, c := range cases {
		t.Run(c.path+" "+c.perms, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				Steps: []resource.TestStep{{
					Config:      dirConfig(env, c.path, c.perms, ""),
					PlanOnly:    true,
					ExpectError: errRe(c.want),
				}},
			})
			if _, err := os.Stat(env.base); !os.IsNotExist(err) {
				t.Fatalf("a refused plan touched the disk: %s exists", env.base)
			}
		})
	}
}
