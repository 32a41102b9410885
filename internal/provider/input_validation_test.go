package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// deepManifest returns a manifest whose entry "top" nests dir children
// levels deep.
func deepManifest(levels int) string {
	s := `{"type":"file","content":"x"}`
	for range levels {
		s = `{"type":"dir","children":{"d":` + s + `}}`
	}
	return `{"version":1,"entries":{"top":` + s + `}}`
}

// bigManifest returns a manifest of n file entries of 150 bytes each.
func bigManifest(n int) string {
	var b strings.Builder
	b.WriteString(`{"version":1,"entries":{`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"d%d/f%d.txt":{"type":"file","content":"%s"}`, i%100, i, strings.Repeat("x", 150))
	}
	b.WriteString(`}}`)
	return b.String()
}

// TestAccInput_refusedAtPlan gives every bad value that used to pass the
// plan (and fail the apply, or never fail) and expects an attribute-scoped
// plan-time error naming the value and the rule; nothing may be created.
func TestAccInput_refusedAtPlan(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	for name, body := range map[string]string{"deep.json": deepManifest(2000), "big.json": bigManifest(45000)} {
		if err := os.WriteFile(filepath.Join(env.src, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if fi, _ := os.Stat(filepath.Join(env.src, "big.json")); fi.Size() < 8<<20 {
		t.Fatalf("big.json is only %d bytes", fi.Size())
	}
	file := func(attrs string) string {
		return env.config(`
resource "sandbox_file" "f" {
  workspace_id = sandbox_workspace.ws.id
  ` + attrs + `
}`)
	}
	docker := func(attrs string) string {
		return fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
resource "sandbox_workspace" "ws" {
  docker {
    image = "sandbox-test/busybox"
  }
  %s
}`, env.base, attrs)
	}
	command := func(attrs string) string {
		return env.config(`
resource "sandbox_command" "c" {
  workspace_id = sandbox_workspace.ws.id
  ` + attrs + `
}`)
	}
	manifest := func(expr string) string {
		return env.config(`
resource "sandbox_manifest" "m" {
  workspace_id  = sandbox_workspace.ws.id
  manifest_json = ` + expr + `
}`)
	}
	cases := map[string]struct{ config, want string }{
		"local_base_dir root": {`
provider "sandbox" {
  local_base_dir = "/"
}
resource "sandbox_workspace" "ws" {
  local {}
}`, `local_base_dir "/" is the file system root`},
		"local_base_dir root spelled": {`
provider "sandbox" {
  local_base_dir = "//./"
}
resource "sandbox_workspace" "ws" {
  local {}
}`, `is the file system root`},
		"empty entry group":     {file(`path = "a.txt"` + "\n" + `content = "x"` + "\n" + `group = ""`), `group name must not be empty`},
		"entry group metachars": {file(`path = "a.txt"` + "\n" + `content = "x"` + "\n" + `group = "g;id"`), `group name "g;id" contains ";"`},
		"file path with slash":  {file(`path = "x/"` + "\n" + `content = "x"`), `path "x/" ends with a separator`},
		"file path with dot":    {file(`path = "x/."` + "\n" + `content = "x"`), `path "x/." ends with a separator`},
		"empty shell":           {command(`shell = ""`), `shell "" is blank`},
		"empty command":         {command(`command = ["", "x"]`), `command[0] is ""`},
		"command env key":       {command(`command = ["true"]` + "\n" + `environment = { "A=B" = "x" }`), `environment variable name "A=B" contains "="`},
		"exec env key": {env.config(`
data "sandbox_exec" "e" {
  workspace_id = sandbox_workspace.ws.id
  command      = ["true"]
  environment  = { "=X" = "x" }
}`), `environment variable name "=X" contains "="`},
		"workspace env key": {docker(`environment = { "K=V" = "x" }`), `environment variable name "K=V" contains "="`},
		"empty user":        {docker(`users = [{ name = "" }]`), `user name must not be empty`},
		"root user":         {docker(`users = [{ name = "root" }]`), `user name "root" names the superuser`},
		"traversing user":   {docker(`users = [{ name = "../etc" }]`), `user name "../etc" must not start with '.'`},
		"shell in user":     {docker(`users = [{ name = "a$(id)" }]`), `user name "a$(id)" contains "$"`},
		"shell in group":    {docker(`groups = [{ name = "g;reboot" }]`), `group name "g;reboot" contains ";"`},
		"shell in member":   {docker(`groups = [{ name = "g", users = [{ name = "u x" }] }]`), `user name "u x" contains " "`},
		"duplicate user":    {docker(`users = [{ name = "a" }, { name = "b" }, { name = "a" }]`), `users lists user "a" twice (index 0 and 2)`},
		"duplicate group":   {docker(`groups = [{ name = "g" }, { name = "g", users = [{ name = "u" }] }]`), `groups lists group "g" twice (index 0 and 1)`},
		"root group":        {docker(`groups = [{ name = "root" }]`), `group name "root" names the superuser's group`},
		"group named like a user": {docker(`users = [{ name = "agent" }]` + "\n" + `groups = [{ name = "t", users = [{ name = "bob" }] }, { name = "agent" }]`),
			`group "agent" has the name of a user`},
		"group named like a member": {docker(`groups = [{ name = "t", users = [{ name = "bob" }] }, { name = "bob" }]`), `group "bob" has the name of a user`},
		"duplicate member":          {docker(`groups = [{ name = "g", users = [{ name = "u" }, { name = "u" }] }]`), `groups[0].users lists member "u" twice`},
		"manifest NUL key":          {manifest(hclString(`{"version":1,"entries":{"a\u0000b":{"type":"file","content":"x"}}}`)), `path "a\x00b" contains a NUL byte`},
		"manifest deep":             {manifest(fmt.Sprintf("file(%q)", filepath.Join(env.src, "deep.json"))), `the manifest is nested more than 128 levels deep`},
		"manifest 10 MB":            {manifest(fmt.Sprintf("file(%q)", filepath.Join(env.src, "big.json"))), `manifests are limited to 4194304 bytes`},
		"manifest file key with slash": {manifest(hclString(`{"version":1,"entries":{"d":{"type":"dir","children":{"x/":{"type":"file","content":"x"}}}}}`)),
			`entry key "x/" is a file, but ends with a separator`},
		"manifest file under file": {manifest(hclString(`{"version":1,"entries":{"d":{"type":"file","content":"x"},"d/e":{"type":"dir"}}}`)),
			`entry "d/e" lies below "d", which another entry of the manifest makes a file`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				Steps:                    []resource.TestStep{{Config: c.config, PlanOnly: true, ExpectError: errRe(c.want)}},
			})
		})
	}
	if entries, err := os.ReadDir(env.base); err == nil && len(entries) > 0 {
		t.Errorf("a refused plan created %d entries in %s", len(entries), env.base)
	}
	for _, p := range []string{"/.workspaces"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s exists: local_base_dir = \"/\" was used", p)
		}
	}
}
