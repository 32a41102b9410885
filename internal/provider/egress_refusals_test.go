package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
)

// Egress is refused at plan, on the attribute, where it cannot be
// enforced or could be undone by the agent, and bad rules are refused on
// the rule's attribute.
func TestAccEgress_refusals(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ws := func(block, egress string) string {
		return env.config("") + `
resource "sandbox_workspace" "other" {
  ` + block + `
  egress = ` + egress + `
}`
	}
	docker := func(extra string) string {
		return `docker {
    image       = "` + dockertest.Image + `"
    pull_policy = "never"
    ` + extra + `
  }`
	}
	deny := `{ default = "deny" }`
	rule := func(r string) string { return `{ default = "deny", allow = [` + r + `] }` }
	steps := []struct{ cfg, want string }{
		{ws("local {}", deny), `(?s)Egress needs a network of its own.*in resource "sandbox_workspace" "other":\s+\d+:\s+egress =`},
		{ws(docker(`network_mode = "none"`), deny), `Egress cannot be used with network_mode "none"`},
		{ws(docker(`network_mode = "host"`), deny), `never\s+changes\s+the\s+host's\s+rules`},
		{ws(docker(`cap_add = ["NET_ADMIN"]`), deny), `Egress cannot be used with cap_add NET_ADMIN`},
		{ws(docker(`cap_add = ["all"]`), deny), `Egress cannot be used with cap_add all`},
		{ws(docker(`cap_add = ["NET_RAW"]`), deny), `(?s)Egress cannot be used with cap_add NET_RAW.*packet socket \(AF_PACKET\)`},
		{ws(docker(`cap_add = ["CAP_net_raw"]`), deny), `Egress cannot be used with cap_add CAP_net_raw`},
		{ws(`kubernetes {
    namespace  = "evals"
    image      = "busybox"
    privileged = true
  }`, deny), `Egress cannot be used with privileged = true`},
		{ws(docker(""), rule(`{ cidr = "10.0.0.1/8" }`)), `host\s+bits\s+are\s+set\s+\(did\s+you\s+mean\s+10.0.0.0/8\?\)`},
		{ws(docker(""), rule(`{ cidr = "10.0.0.300" }`)), `not an IPv4 or IPv6 address or prefix`},
		{ws(docker(""), rule(`{ cidr = "10.0.0.0/8", ports = [70000] }`)), `port 70000: expected 1 to 65535`},
		{ws(docker(""), rule(`{ host = "example.com", protocol = "icmp" }`)), `protocol "icmp" cannot be used with host`},
		{ws(docker(""), rule(`{ cidr = "10.0.0.0/8", host = "example.com" }`)), `exactly one of cidr or host must be set`},
		{ws(docker(""), rule(`{ cidr = "10.0.0.0/8", ports = [53], protocol = "icmp" }`)), `ports cannot be used with protocol "icmp"`},
		{ws(docker(""), rule(`{ host = "10.0.0.1" }`)), `is an address: give it as cidr`},
	}
	var ts []resource.TestStep
	for _, s := range steps {
		ts = append(ts, resource.TestStep{Config: s.cfg, PlanOnly: true, ExpectError: regexp.MustCompile(strings.ReplaceAll(s.want, " ", `\s+`))})
	}
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: protoV6Factories, Steps: ts})
}
