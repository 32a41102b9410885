package provider

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/incontainer"
)

// TestAccDockerHelper_outOfAgentReach: a command run as root in a default
// Docker workspace tries to overwrite, replace, rename and unmount the
// file helper; every attempt fails, and the files written and refreshed
// afterwards go through the genuine helper (byte for byte the host's).
func TestAccDockerHelper_outOfAgentReach(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	h, err := incontainer.FindHelper()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(h.Path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(bin)
	dir := "/.sandbox-fs-helper/" + h.Digest
	attacks := []string{
		"cp /bin/sh " + dir + "/sandbox-fs-helper",
		"rm -f " + dir + "/sandbox-fs-helper",
		"mv " + dir + " /.sandbox-fs-helper/x",
		"mv /.sandbox-fs-helper /moved",
		"umount -l /.sandbox-fs-helper",
		"mount -o remount,rw /.sandbox-fs-helper",
	}
	var script strings.Builder
	script.WriteString("id -u; ")
	for _, a := range attacks {
		script.WriteString("if " + a + " 2>/dev/null; then echo changed; else echo kept; fi; ")
	}
	body := `
resource "sandbox_command" "agent" {
  workspace_id = sandbox_workspace.ws.id
  command      = ["sh", "-c", ` + hclString(script.String()) + `]
}
resource "sandbox_file" "after" {
  workspace_id = sandbox_command.agent.workspace_id
  path         = "after.txt"
  content      = "written after the attempts\n"
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{
				Config: env.config("", body),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("sandbox_command.agent", tfjsonpath.New("stdout"),
						knownvalue.StringExact("0\n"+strings.Repeat("kept\n", len(attacks)))),
				},
				Check: resource.ComposeTestCheckFunc(
					env.expectSh("cat /workspace/after.txt", "written after the attempts"),
					env.expectSh("sha256sum "+dir+"/sandbox-fs-helper | cut -d' ' -f1", hex.EncodeToString(sum[:])),
				),
			},
			{
				// A refresh and an empty plan through the same helper.
				Config:   env.config("", body),
				PlanOnly: true,
			},
		},
	})
}
