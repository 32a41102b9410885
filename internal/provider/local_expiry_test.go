package provider

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"golang.org/x/sys/unix"
)

// markerOf reads the workspace marker of a local root.
func markerOf(root string) (map[string]any, error) {
	buf := make([]byte, 4096)
	n, err := unix.Getxattr(root, "user.sandbox.workspace", buf)
	if err != nil {
		return nil, fmt.Errorf("marker of %s: %w", root, err)
	}
	var m map[string]any
	return m, json.Unmarshal(buf[:n], &m)
}

// Nothing enforces a local workspace's lifetime: the marker records it, and
// the plan after it replaces the workspace with a warning naming expires_at.
func TestAccLocalWorkspace_lifetimeExpired(t *testing.T) {
	e := newTestEnv(t)
	log := &warningLog{}
	var at time.Time
	var firstID string
	cfg := fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
resource "sandbox_workspace" "ws" {
  local {}
  lifetime  = "10s"
  on_expiry = "remove"
}`, e.base)
	checkMarker := func(s *terraform.State) error {
		if err := expiresAtOf(t, s, "sandbox_workspace.ws", 10*time.Second, &at); err != nil {
			return err
		}
		a := s.RootModule().Resources["sandbox_workspace.ws"].Primary.Attributes
		m, err := markerOf(a["root"])
		if err != nil {
			return err
		}
		if m["expires_at"] != a["expires_at"] || m["lifetime"] != "10s" || m["on_expiry"] != "remove" {
			return fmt.Errorf("marker %v, state expires_at %s", m, a["expires_at"])
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: recordingFactories(log),
		Steps: []resource.TestStep{
			{Config: cfg, Check: resource.ComposeTestCheckFunc(checkMarker, func(s *terraform.State) error {
				firstID = s.RootModule().Resources["sandbox_workspace.ws"].Primary.Attributes["id"]
				return nil
			})},
			{
				ResourceName: "sandbox_workspace.ws", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"keep_on_destroy"},
			},
			{
				PreConfig: func() { sleepUntil(at); log.reset() },
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionReplace),
					expectWarning{log, func() []string {
						return []string{"Workspace expired", "expired at " + at.Format(time.RFC3339), "nothing enforces"}
					}},
				}},
				Check: resource.ComposeTestCheckFunc(checkMarker, func(s *terraform.State) error {
					if id := s.RootModule().Resources["sandbox_workspace.ws"].Primary.Attributes["id"]; id == firstID {
						return fmt.Errorf("workspace %s was not replaced", id)
					}
					return nil
				}),
			},
		},
	})
}
