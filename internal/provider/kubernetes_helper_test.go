package provider

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/kubetest"
)

const kubeHelperFile = `
resource "sandbox_file" "f" {
  workspace_id = sandbox_workspace.ws.id
  path         = "notes.txt"
  content      = %q
}
`

// The agent, root in the pod's workspace container, cannot overwrite,
// remove, rename or chmod the file helper; the next apply (a new provider
// process) still writes through the genuine helper, whose sha256 in the
// pod is the host binary's, and the plan after it is empty.
func TestAccKubernetesWorkspace_helperOutOfAgentReach(t *testing.T) {
	env := newKubeEnv(t)
	hostBin, err := os.ReadFile(os.Getenv("SANDBOX_FS_HELPER"))
	if err != nil {
		t.Fatalf("the pod tests need SANDBOX_FS_HELPER: %v", err)
	}
	sum := sha256.Sum256(hostBin)
	want := hex.EncodeToString(sum[:])
	hp := "/.sandbox-fs-helper/" + want[:16] + "/sandbox-fs-helper"
	tamper := func(s *terraform.State) error {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		for _, attempt := range []string{
			"id -u | grep -qx 0 && echo '#!/bin/sh' > " + hp,
			"id -u | grep -qx 0 && rm -f " + hp,
			"id -u | grep -qx 0 && mv -f " + hp + " /tmp/moved",
			"id -u | grep -qx 0 && chmod 0777 " + hp,
			"id -u | grep -qx 0 && mv /.sandbox-fs-helper /moved",
		} {
			if out, _, err := kubetest.ExecIn(ctx, env.cfg, kubetest.WebSocket, env.ns, env.pod(s), kubetest.WorkspaceContainer, nil, "sh", "-c", attempt); err == nil {
				return fmt.Errorf("the agent's %q succeeded: %s", attempt, out)
			}
		}
		return nil
	}
	genuine := env.expectSh("sha256sum "+hp+" | cut -c1-64; stat -c '%a' "+hp, want+"\n755")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{
				Config: env.config("", "", fmt.Sprintf(kubeHelperFile, "one\n")),
				Check:  resource.ComposeTestCheckFunc(genuine, tamper, genuine),
			},
			{
				Config: env.config("", "", fmt.Sprintf(kubeHelperFile, "two\n")),
				Check:  resource.ComposeTestCheckFunc(env.expectSh("cat /workspace/notes.txt", "two"), genuine),
			},
		},
	})
}
