package provider

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func fileConfig(env *testEnv, p, attrs string) string {
	return env.config(fmt.Sprintf(`
resource "sandbox_file" "f" {
  workspace_id = sandbox_workspace.ws.id
  path         = %s
  %s
}
`, hclString(p), attrs))
}

func checkWorkspaceFile(env *testEnv, rel, content string, mode os.FileMode) resource.TestCheckFunc {
	return func(*terraform.State) error {
		return expectFile(filepath.Join(env.wsRoot(), rel), content, mode)
	}
}

// digestChecks are plan checks that size, SHA-256 and the digests named
// in asked ("md5", "sha1", "sha512", as `checksums`) are known in the plan
// and equal to the digests of want, computed here with the standard
// library, and that the digests not asked for are null.
func digestChecks(addr, want string, asked ...string) []plancheck.PlanCheck {
	b := []byte(want)
	md := md5.Sum(b)
	s1 := sha1.Sum(b)
	s256 := sha256.Sum256(b)
	s512 := sha512.Sum512(b)
	exp := map[string]string{
		"content_sha256":       hex.EncodeToString(s256[:]),
		"content_base64sha256": base64.StdEncoding.EncodeToString(s256[:]),
	}
	optional := map[string]map[string]string{
		"md5":    {"content_md5": hex.EncodeToString(md[:])},
		"sha1":   {"content_sha1": hex.EncodeToString(s1[:])},
		"sha512": {"content_sha512": hex.EncodeToString(s512[:]), "content_base64sha512": base64.StdEncoding.EncodeToString(s512[:])},
	}
	checks := []plancheck.PlanCheck{
		plancheck.ExpectKnownValue(addr, tfjsonpath.New("size"), knownvalue.Int64Exact(int64(len(b)))),
	}
	for name, attrs := range optional {
		for k, v := range attrs {
			if slices.Contains(asked, name) {
				exp[k] = v
			} else {
				checks = append(checks, plancheck.ExpectKnownValue(addr, tfjsonpath.New(k), knownvalue.Null()))
			}
		}
	}
	for k, v := range exp {
		checks = append(checks, plancheck.ExpectKnownValue(addr, tfjsonpath.New(k), knownvalue.StringExact(v)))
	}
	return checks
}

func TestAccFile_content(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	// A fixed, independently known digest guards the helper itself.
	if got := fmt.Sprintf("%x", sha256.Sum256([]byte("hello\n"))); got != "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03" {
		t.Fatalf("sha256 helper broken: %s", got)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: fileConfig(env, "etc/app.conf", `content = "hello\n"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: append(digestChecks("sandbox_file.f", "hello\n"),
						plancheck.ExpectResourceAction("sandbox_file.f", plancheck.ResourceActionCreate)),
				},
				// Default mode is the Python SDK's rwxr-xr-x, despite umask 077.
				Check: checkWorkspaceFile(env, "etc/app.conf", "hello\n", 0o755),
			},
			{
				Config: fileConfig(env, "etc/app.conf", `content = "hello again\n"
  permissions = "-rw-r-----"
  checksums   = ["md5", "sha1", "sha512"]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: append(digestChecks("sandbox_file.f", "hello again\n", "md5", "sha1", "sha512"),
						plancheck.ExpectResourceAction("sandbox_file.f", plancheck.ResourceActionUpdate)),
				},
				Check: checkWorkspaceFile(env, "etc/app.conf", "hello again\n", 0o640),
			},
			{
				// Content and mode changed out of band: restored.
				PreConfig: func() {
					p := filepath.Join(env.wsRoot(), "etc/app.conf")
					if err := os.WriteFile(p, []byte("tampered"), 0o666); err != nil {
						t.Fatal(err)
					}
					if err := os.Chmod(p, 0o666); err != nil {
						t.Fatal(err)
					}
				},
				Config: fileConfig(env, "etc/app.conf", `content = "hello again\n"
  permissions = "-rw-r-----"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("sandbox_file.f", plancheck.ResourceActionUpdate)},
				},
				Check: checkWorkspaceFile(env, "etc/app.conf", "hello again\n", 0o640),
			},
			{
				// Deleted out of band: planned for creation.
				PreConfig: func() {
					if err := os.Remove(filepath.Join(env.wsRoot(), "etc/app.conf")); err != nil {
						t.Fatal(err)
					}
				},
				Config: fileConfig(env, "etc/app.conf", `content = "hello again\n"
  permissions = "-rw-r-----"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("sandbox_file.f", plancheck.ResourceActionCreate)},
				},
				Check: checkWorkspaceFile(env, "etc/app.conf", "hello again\n", 0o640),
			},
			{
				ResourceName:      "sandbox_file.f",
				ImportState:       true,
				ImportStateVerify: true,
				// An imported file's content is unknown until configuration
				// gives it: no digest is read back (it could be a secret's).
				ImportStateVerifyIgnore: []string{"content", "permissions", "manifest_entry", "size", "content_md5", "content_sha1", "content_sha256", "content_base64sha256", "content_sha512", "content_base64sha512"},
			},
			{
				// Binary content; a new path replaces the file.
				Config: fileConfig(env, "bin/blob", `content_base64 = "AAEC/w=="
  checksums      = ["sha512"]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: append(digestChecks("sandbox_file.f", "\x00\x01\x02\xff", "sha512"),
						plancheck.ExpectResourceAction("sandbox_file.f", plancheck.ResourceActionReplace)),
				},
				Check: resource.ComposeTestCheckFunc(
					checkWorkspaceFile(env, "bin/blob", "\x00\x01\x02\xff", 0o755),
					func(*terraform.State) error {
						if _, err := os.Lstat(filepath.Join(env.wsRoot(), "etc/app.conf")); !os.IsNotExist(err) {
							return fmt.Errorf("replaced file etc/app.conf still exists (%w)", err)
						}
						return nil
					},
				),
			},
		},
	})
}

func TestAccFile_source(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	src := env.writeSource("conf/settings.json", `{"a":1}`, 0o600)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: fileConfig(env, "settings.json", fmt.Sprintf(`source = %q
  permissions = "0644"
  checksums   = ["md5", "sha1", "sha512"]`, src)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: digestChecks("sandbox_file.f", `{"a":1}`, "md5", "sha1", "sha512")},
				Check:            checkWorkspaceFile(env, "settings.json", `{"a":1}`, 0o644),
			},
			{
				// An edited host source shows in the plan and is re-copied.
				PreConfig: func() { env.writeSource("conf/settings.json", `{"a":2}`, 0o600) },
				Config: fileConfig(env, "settings.json", fmt.Sprintf(`source = %q
  permissions = "0644"`, src)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: append(digestChecks("sandbox_file.f", `{"a":2}`),
						plancheck.ExpectResourceAction("sandbox_file.f", plancheck.ResourceActionUpdate)),
				},
				Check: checkWorkspaceFile(env, "settings.json", `{"a":2}`, 0o644),
			},
		},
	})
}

func TestAccFile_writeOnlySecret(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	const secret = "s3cr3t-value-that-must-not-leak"
	cfg := func(version int) string {
		return fileConfig(env, ".secrets/token", fmt.Sprintf(`content_wo = %q
  content_wo_version = %d
  permissions = "0600"`, secret+fmt.Sprint(version), version))
	}
	noLeak := func(s *terraform.State) error {
		for _, m := range s.Modules {
			for addr, r := range m.Resources {
				for k, v := range r.Primary.Attributes {
					if strings.Contains(v, secret) {
						return fmt.Errorf("secret found in state at %s.%s", addr, k)
					}
					for _, version := range []string{"1", "2", ""} {
						if v == sha(secret+version) {
							return fmt.Errorf("the SHA-256 of the secret is in state at %s.%s", addr, k)
						}
					}
				}
			}
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: cfg(1),
				Check: resource.ComposeTestCheckFunc(
					checkWorkspaceFile(env, ".secrets/token", secret+"1", 0o600), noLeak,
					resource.TestCheckNoResourceAttr("sandbox_file.f", "content_wo"),
					resource.TestCheckNoResourceAttr("sandbox_file.f", "content_sha256"),
				),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("sandbox_file.f", tfjsonpath.New("size"), knownvalue.Null()),
				},
			},
			{
				// A new version rotates the secret.
				Config: cfg(2),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("sandbox_file.f", plancheck.ResourceActionUpdate)},
				},
				Check: resource.ComposeTestCheckFunc(checkWorkspaceFile(env, ".secrets/token", secret+"2", 0o600), noLeak),
			},
			{
				// Deleted out of band: re-created with the secret.
				PreConfig: func() { _ = os.Remove(filepath.Join(env.wsRoot(), ".secrets/token")) },
				Config:    cfg(2),
				Check:     checkWorkspaceFile(env, ".secrets/token", secret+"2", 0o600),
			},
			{
				// Without a version, refreshes never read a digest back:
				// the plan stays empty and no hash of the secret lands.
				Config: fileConfig(env, ".secrets/token", fmt.Sprintf(`content_wo = %q
  permissions = "0600"`, secret)),
				Check: noLeak,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}

// A write whose chgrp fails leaves no file behind: nothing untracked.
func TestAccFile_failedMetadataLeavesNothing(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: fileConfig(env, "g/file.txt", `content = "x"
  group = "no-such-group-for-sure"`),
				ExpectError: errRe(`unknown group "no-such-group-for-sure"`),
			},
			{
				PreConfig: func() {
					if _, err := os.Lstat(filepath.Join(env.wsRoot(), "g/file.txt")); !os.IsNotExist(err) {
						t.Fatalf("the failed write left g/file.txt behind (%v)", err)
					}
				},
				Config: fileConfig(env, "g/file.txt", `content = "x"`),
				Check:  checkWorkspaceFile(env, "g/file.txt", "x", 0o755),
			},
		},
	})
}

func TestAccFile_invalid(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "x.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	target := env.writeSource("real.txt", "real", 0o644)
	if err := os.Symlink(target, filepath.Join(env.src, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(env.src, filepath.Join(outside, "via")); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct{ path, attrs, want string }{
		"both contents": {"a", `content = "x"
  source = "y"`, `Exactly one of these attributes must be configured`},
		"no content":     {"a", ``, `Missing Attribute Configuration`},
		"outside base":   {"a", fmt.Sprintf(`source = %q`, filepath.Join(outside, "x.txt")), `reason: outside_base_dir`},
		"symlink leaf":   {"a", fmt.Sprintf(`source = %q`, filepath.Join(env.src, "link.txt")), `reason: symlink_not_supported`},
		"missing source": {"a", fmt.Sprintf(`source = %q`, filepath.Join(env.src, "nope.txt")), `reason: path_not_found`},
		"typo in source": {"a", fmt.Sprintf(`source = %q`, filepath.Join(env.src, "rael.txt")), "did_you_mean: " + filepath.Join(env.src, "real.txt")},
		"bad base64":     {"a", `content_base64 = "%%%"`, `content_base64 must be standard base64`},
		"workspace root": {".", `content = "x"`, `names the workspace root itself`},
		"empty path":     {"", `content = "x"`, `names the workspace root itself`},
		"nul":            {"a\u0000b", `content = "x"`, `contains a NUL byte`},
		"long name":      {strings.Repeat("n", 300), `content = "x"`, `file names are limited to 255 bytes`},

		"escape": {"../x", `content = "x"`, `manifest path must not escape root: ../x`},
		"wo version alone": {"a", `content = "x"
  content_wo_version = 1`, `content_wo_version only triggers rewriting content_wo`},
		"sha256 asked": {"a", `content = "x"
  checksums = ["md5", "sha256"]`, `Attribute checksums[Value("sha256")] value must be one of`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				Steps: []resource.TestStep{{
					Config:      fileConfig(env, c.path, c.attrs),
					PlanOnly:    true,
					ExpectError: errRe(c.want),
				}},
			})
		})
	}
}
