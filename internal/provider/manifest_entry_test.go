package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// TestAccManifestEntryPlanTime checks each entry resource's manifest_entry
// in the plan, against the Python SDK's JSON written out by hand (design/sdk-model.md §2, §7).
func TestAccManifestEntryPlanTime(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	env.writeSource("tree/a.txt", "a", 0o644)
	src := env.src + "/tree"
	known := func(addr, want string) plancheck.PlanCheck {
		return plancheck.ExpectKnownValue(addr, tfjsonpath.New("manifest_entry"), knownvalue.StringExact(want))
	}
	null := func(addr string) plancheck.PlanCheck {
		return plancheck.ExpectKnownValue(addr, tfjsonpath.New("manifest_entry"), knownvalue.Null())
	}
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   requireTF111,
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: env.config(fmt.Sprintf(`
resource "sandbox_dir" "d" {
  workspace_id = sandbox_workspace.ws.id
  path         = "d"
  permissions  = "drwxr-x---"
  group        = "daemon"
  ephemeral    = true
}

resource "sandbox_file" "text" {
  workspace_id = sandbox_workspace.ws.id
  path         = "t.txt"
  content      = "line \"1\"\n"
  permissions  = "0640"
  description  = "ünïcode"
}

resource "sandbox_file" "secret" {
  workspace_id       = sandbox_workspace.ws.id
  path               = "s.txt"
  content_wo         = "hunter2"
  content_wo_version = 1
  permissions        = "0600"
}

resource "sandbox_file" "binary" {
  workspace_id   = sandbox_workspace.ws.id
  path           = "b.bin"
  content_base64 = "AAEC/w=="
}

resource "sandbox_local_dir" "copy" {
  workspace_id = sandbox_workspace.ws.id
  path         = "copy"
  source       = %[1]q
}

resource "sandbox_local_dir" "kept" {
  workspace_id            = sandbox_workspace.ws.id
  path                    = "kept"
  source                  = %[1]q
  keep_source_permissions = true
}
`, src)),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					known("sandbox_dir.d", `{"type":"dir","description":null,"ephemeral":true,"group":{"name":"daemon"},"is_dir":true,`+
						`"permissions":{"owner":7,"group":5,"other":0,"directory":true},"children":{}}`),
					known("sandbox_file.text", `{"type":"file","description":"ünïcode","ephemeral":false,"group":null,"is_dir":false,`+
						`"permissions":{"owner":6,"group":4,"other":0,"directory":false},"content":"line \"1\"\n"}`),
					known("sandbox_file.secret", `{"type":"file","description":null,"ephemeral":false,"group":null,"is_dir":false,`+
						`"permissions":{"owner":6,"group":0,"other":0,"directory":false},"content":null}`),
					null("sandbox_file.binary"),
					null("sandbox_local_dir.kept"), // the Python SDK would write its files 0644
					known("sandbox_local_dir.copy", `{"type":"local_dir","description":null,"ephemeral":false,"group":null,"is_dir":true,`+
						`"permissions":{"owner":7,"group":5,"other":5,"directory":true},"src":"`+src+`"}`),
				},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		}},
	})
}
