package provider

import (
	"fmt"
	"net"
	"net/netip"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"golang.org/x/net/dns/dnsmessage"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/egress"
)

// testDNS serves, on 127.0.0.1, an A record for name with the address
// *answer holds (AAAA questions get no answer) and points the provider's
// egress resolver at it for the test.
func testDNS(t *testing.T, name string, answer *atomic.Value) {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pc.Close() })
	t.Setenv(egress.ResolverEnv, pc.LocalAddr().String())
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			var p dnsmessage.Parser
			h, err := p.Start(buf[:n])
			if err != nil {
				continue
			}
			q, err := p.Question()
			if err != nil {
				continue
			}
			b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true})
			_ = b.StartQuestions()
			_ = b.Question(q)
			_ = b.StartAnswers()
			if q.Type == dnsmessage.TypeA && q.Name.String() == name+"." {
				a := netip.MustParseAddr(answer.Load().(string)).As4()
				_ = b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 1}, dnsmessage.AResource{A: a})
			}
			if msg, err := b.Finish(); err == nil {
				_, _ = pc.WriteTo(msg, from)
			}
		}
	}()
}

// A host rule is resolved by the provider (here through a test DNS
// server): the address is in state and enforced; when the server's answer
// changes the next plan shows the drift, and the apply enforces the new
// address instead of the old one.
func TestAccDockerEgress_host(t *testing.T) {
	keepHostRules(t)
	env := newDockerEnv(t)
	evalnet := testNetwork(t)
	_, ipA := egressPeer(t, evalnet, "a")
	_, ipB := egressPeer(t, evalnet, "b")
	const name = "peer.egress.test"
	var answer atomic.Value
	answer.Store(ipA)
	testDNS(t, name, &answer)
	cfg := env.configDocker(fmt.Sprintf("networks = [{ name = %q }]", evalnet), `
  egress = {
    default = "deny"
    allow   = [{ host = "`+name+`", ports = [8080], protocol = "tcp" }]
  }`, "")
	reaches := func(want map[string]string) resource.TestCheckFunc {
		return func(s *terraform.State) error { return expectReach(env.container(s), want) }
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "egress.resolved."+name+".#", "1"),
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "egress.resolved."+name+".0", ipA),
					reaches(map[string]string{ipA + ":8080": "a-8080", ipA + ":8081": "", ipB + ":8080": ""})),
			},
			{
				PreConfig: func() { answer.Store(ipB) },
				Config:    cfg,
				PlanOnly:  true, ExpectNonEmptyPlan: true,
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "egress.resolved."+name+".0", ipB),
					reaches(map[string]string{ipB + ":8080": "b-8080", ipA + ":8080": "", ipB + ":8081": ""})),
			},
		},
	})
}
