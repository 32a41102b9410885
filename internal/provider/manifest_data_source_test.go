package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

const manifestDataConfig = `
data "sandbox_manifest" "m" {
  root = "/w"
  entries = {
    "z.txt" = jsonencode({ type = "file", content = "z" })
    "a"     = jsonencode({ type = "dir", children = { "b.md" = { type = "file", content = "b", ephemeral = true } } })
  }
  environment = {
    B = "2"
    A = "1"
    C = { type = "str", value = "3" }
    D = { description = "a token", ephemeral = true, value = { type = "str", value = "4" } }
    E = { value = "5" }
  }
  users             = [{ name = "agent" }]
  groups            = [{ name = "agents", users = [{ name = "agent" }] }, { name = "empty" }]
  extra_path_grants = [{ path = "/opt/tools/", read_only = true }]
}
`

// wantManifestJSON is the Python SDK's model_dump_json() of the manifest above,
// written out by hand from design/sdk-model.md §2, §3.1 and §7: entries and environment
// in byte order, defaults filled, the grant path normalised, typed
// environment values with their type (the legacy {"value": ...} too).
const wantManifestJSON = `{"version":1,"root":"/w","entries":{` +
	`"a":{"type":"dir","description":null,"ephemeral":false,"group":null,"is_dir":true,` +
	`"permissions":{"owner":7,"group":5,"other":5,"directory":true},"children":{"b.md":{"type":"file","description":null,` +
	`"ephemeral":true,"group":null,"is_dir":false,"permissions":{"owner":7,"group":5,"other":5,"directory":false},"content":"b"}}},` +
	`"z.txt":{"type":"file","description":null,"ephemeral":false,"group":null,"is_dir":false,` +
	`"permissions":{"owner":7,"group":5,"other":5,"directory":false},"content":"z"}},` +
	`"environment":{"value":{"A":"1","B":"2","C":{"type":"str","value":"3"},` +
	`"D":{"description":"a token","ephemeral":true,"value":{"type":"str","value":"4"}},"E":{"type":"str","value":"5"}}},` +
	`"users":[{"name":"agent"}],"groups":[{"name":"agents","users":[{"name":"agent"}]},{"name":"empty","users":[]}],` +
	`"extra_path_grants":[{"path":"/opt/tools","read_only":true,"description":null}],` +
	`"remote_mount_command_allowlist":["ls","find","stat","cat","less","head","tail","du","grep","rg","wc","sort","cut","cp","tee","echo","mkdir","rm"]}`

func TestAccManifestDataSource(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{
				Config:      `data "sandbox_manifest" "m" { entries = { "../x" = jsonencode({ type = "file", content = "" }) } }`,
				ExpectError: errRe("manifest path must not escape root: ../x"),
			},
			{
				Config:      `data "sandbox_manifest" "m" { entries = { "d" = jsonencode({ type = "dir", children = { "/etc/x" = { type = "file", content = "" } } }) } }`,
				ExpectError: errRe("manifest path must be relative: /etc/x"),
			},
			{
				Config:      `data "sandbox_manifest" "m" { entries = { "s" = jsonencode({ type = "file", content = null }) } }`,
				ExpectError: errRe("entries.content: Input should be a valid string (a sandbox_file with content_wo renders its content as null"),
			},
			{
				Config:      `data "sandbox_manifest" "m" { entries = { "x" = jsonencode({ type = "symlink" }) } }`,
				ExpectError: errRe("Unknown artifact type `symlink`. Registered types: azure_blob_mount, box_mount, dir, file"),
			},
			{
				// A binary sandbox_file renders a null manifest_entry: an
				// attribute error saying why, not a conversion error.
				Config: env.config(`
resource "sandbox_file" "bin" {
  workspace_id   = sandbox_workspace.ws.id
  path           = "b.bin"
  content_base64 = "AAEC/w=="
}
data "sandbox_manifest" "m" { entries = { "b.bin" = sandbox_file.bin.manifest_entry } }`),
				ExpectError: errRe(`entries["b.bin"] is null. A resource's manifest_entry is null when the entry has no Python SDK JSON form`),
			},
			{
				Config:      `data "sandbox_manifest" "m" { entries = { "n" = null } }`,
				ExpectError: errRe(`Manifest entry "n" is null`),
			},
			{
				Config:      `data "sandbox_manifest" "m" { environment = { A = { type = "int", value = "1" } } }`,
				ExpectError: errRe("Unknown env value type `int`. Registered types: str"),
			},
			{
				Config:      `data "sandbox_manifest" "m" { environment = { A = { value = "1", description = "x" } } }`,
				ExpectError: errRe("env value mapping must include a string `type` field"),
			},
			{
				Config:      `data "sandbox_manifest" "m" { environment = { "A=B" = "1" } }`,
				ExpectError: errRe(`environment variable name "A=B" contains "="`),
			},
			{
				Config:      `data "sandbox_manifest" "m" { entries = { "x\u0000y" = jsonencode({ type = "file", content = "" }) } }`,
				ExpectError: errRe(`path "x\x00y" contains a NUL byte`),
			},
			{
				Config:      `data "sandbox_manifest" "m" { entries = { "" = jsonencode({ type = "file", content = "" }) } }`,
				ExpectError: errRe(`path "." names the workspace root itself`),
			},
			{
				Config: manifestDataConfig,
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("data.sandbox_manifest.m", "json", wantManifestJSON),
					resource.TestCheckResourceAttrWith("data.sandbox_manifest.m", "json_indented", func(v string) error {
						if len(v) < 20 || v[:20] != "{\n  \"version\": 1,\n  " {
							return fmt.Errorf("json_indented does not start as json.dumps(indent=2) does:\n%s", v)
						}
						return nil
					}),
				),
			},
			{
				// The same input gives the same bytes: nothing to plan.
				Config:   manifestDataConfig,
				PlanOnly: true,
			},
		},
	})
}
