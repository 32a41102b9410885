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
  environment       = { B = "2", A = "1" }
  users             = ["agent"]
  groups            = [{ name = "agents", users = ["agent"] }]
  extra_path_grants = [{ path = "/opt/tools/", read_only = true }]
}
`

// wantManifestJSON is the Python SDK's model_dump_json() of the manifest above,
// written out by hand from design/sdk-model.md §2, §3.1 and §7: entries and environment
// in byte order, defaults filled, the grant path normalised.
const wantManifestJSON = `{"version":1,"root":"/w","entries":{` +
	`"a":{"type":"dir","description":null,"ephemeral":false,"group":null,"is_dir":true,` +
	`"permissions":{"owner":7,"group":5,"other":5,"directory":true},"children":{"b.md":{"type":"file","description":null,` +
	`"ephemeral":true,"group":null,"is_dir":false,"permissions":{"owner":7,"group":5,"other":5,"directory":false},"content":"b"}}},` +
	`"z.txt":{"type":"file","description":null,"ephemeral":false,"group":null,"is_dir":false,` +
	`"permissions":{"owner":7,"group":5,"other":5,"directory":false},"content":"z"}},` +
	`"environment":{"value":{"A":"1","B":"2"}},"users":[{"name":"agent"}],"groups":[{"name":"agents","users":[{"name":"agent"}]}],` +
	`"extra_path_grants":[{"path":"/opt/tools","read_only":true,"description":null}],` +
	`"remote_mount_command_allowlist":["ls","find","stat","cat","less","head","tail","du","grep","rg","wc","sort","cut","cp","tee","echo","mkdir","rm"]}`

func TestAccManifestDataSource(t *testing.T) {
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
