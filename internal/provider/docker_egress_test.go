package provider

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
)

// A workspace on a test-made network with egress default deny and one
// allow rule reaches peer A's port 8080 and nothing else (not A:8081, not
// B); the rules are in its own network namespace, root in the workspace
// cannot remove them, and when they are removed out of band the next plan
// shows the drift and the apply puts them back. An import reads the policy
// back, and removing egress from the configuration removes the rules.
// The host's firewall is untouched.
func TestAccDockerEgress_denyByDefault(t *testing.T) {
	keepHostRules(t)
	env := newDockerEnv(t)
	evalnet := testNetwork(t)
	_, ipA := egressPeer(t, evalnet, "a")
	_, ipB := egressPeer(t, evalnet, "b")
	cfg := env.configDocker(fmt.Sprintf("networks = [{ name = %q }]", evalnet), fmt.Sprintf(`
  egress = {
    default = "deny"
    allow   = [{ cidr = "%s/32", ports = [8080] }]
  }`, ipA), "")
	enforced := func(s *terraform.State) error {
		id := env.container(s)
		present, policy, comments, err := nsTable(id)
		if err != nil {
			return err
		}
		want := []string{"base loopback", "base replies", fmt.Sprintf("allow 0 any tcp 8080 %s/32", ipA), fmt.Sprintf("allow 0 any udp 8080 %s/32", ipA)}
		if !present || policy != "drop" || !slices.Equal(comments, want) {
			return fmt.Errorf("the workspace's namespace holds table=%v policy=%q rules %q; want policy drop and %q", present, policy, comments, want)
		}
		return expectReach(id, map[string]string{ipA + ":8080": "a-8080", ipA + ":8081": "", ipB + ":8080": "", ipB + ":8081": ""})
	}
	rootCannotRemove := func(s *terraform.State) error {
		id := env.container(s)
		out, err := sh(id, "h=$(ls "+path.Join(fshelper.HelperDir, "*", fshelper.HelperName)+" | head -1); $h egress remove 2>&1; echo rc=$?")
		if err != nil {
			return err
		}
		if !strings.Contains(out, "operation not permitted") || strings.HasSuffix(out, "rc=0") {
			return fmt.Errorf("root in the workspace removing the egress table: %q, want operation not permitted", out)
		}
		if present, _, _, err := nsTable(id); err != nil || !present {
			return fmt.Errorf("after root in the workspace tried to remove it, the table is present=%v (%w)", present, err)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: resource.ComposeTestCheckFunc(enforced, rootCannotRemove,
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "egress.resolved.%", "0")),
			},
			{
				// Removed out of band: the plan shows it, the apply restores it.
				PreConfig: func() {
					id := env.seenOne(t)
					if err := flushJoined(id); err != nil {
						t.Fatal(err)
					}
					if present, _, _, _ := nsTable(id); present {
						t.Fatal("the out-of-band flush left the table in place")
					}
					// Without the rules B is reachable: what the checks deny is the policy's doing.
					if got := reach(id, ipB, 8081); got != "b-8081" {
						t.Fatalf("without egress rules the workspace fetching B:8081 got %q", got)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionUpdate),
				}},
				Check: enforced,
			},
			{
				ResourceName: "sandbox_workspace.ws", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"keep_on_destroy", "docker.pull_policy"},
			},
			{
				// Without egress in the configuration the table goes and B is reachable again.
				Config: env.configDocker(fmt.Sprintf("networks = [{ name = %q }]", evalnet), "", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionUpdate),
				}},
				Check: func(s *terraform.State) error {
					id := env.container(s)
					if present, _, _, err := nsTable(id); err != nil || present {
						return fmt.Errorf("after egress was removed the table is present=%v (%w)", present, err)
					}
					return expectReach(id, map[string]string{ipB + ":8081": "b-8081"})
				},
			},
		},
	})
}
