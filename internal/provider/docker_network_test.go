package provider

import (
	"context"
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
)

// testNetwork creates a user-defined bridge network for the test; at its
// end every container still on it is disconnected and it is removed.
func testNetwork(t *testing.T) string {
	t.Helper()
	name := "sandbox-test-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	cli := dockertest.Client()
	if _, err := cli.NetworkCreate(context.Background(), name, client.NetworkCreateOptions{Driver: "bridge"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		if res, err := cli.NetworkInspect(ctx, name, client.NetworkInspectOptions{}); err == nil {
			for id := range res.Network.Containers {
				_, _ = cli.NetworkDisconnect(ctx, name, client.NetworkDisconnectOptions{Container: id, Force: true})
			}
		}
		if _, err := cli.NetworkRemove(ctx, name, client.NetworkRemoveOptions{}); err != nil {
			t.Errorf("removing test network %s: %v", name, err)
		}
	})
	return name
}

// peer starts a container of the test image on network as alias, which
// answers "peer-ok" to every TCP connection on port 8080, and returns its id
// and address there; it is removed at the test's end.
func peer(t *testing.T, evalnet, alias string) (id, ip string) {
	t.Helper()
	ctx := context.Background()
	cli := dockertest.Client()
	created, err := cli.ContainerCreate(ctx, client.ContainerCreateOptions{
		Config: &container.Config{Image: dockertest.Image, Entrypoint: []string{"sh", "-c"},
			Cmd: []string{"while true; do echo peer-ok | nc -l -p 8080; done"}},
		HostConfig:       &container.HostConfig{NetworkMode: container.NetworkMode(evalnet)},
		NetworkingConfig: &network.NetworkingConfig{EndpointsConfig: map[string]*network.EndpointSettings{evalnet: {Aliases: []string{alias}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = cli.ContainerRemove(context.Background(), created.ID, client.ContainerRemoveOptions{Force: true})
	})
	if _, err := cli.ContainerStart(ctx, created.ID, client.ContainerStartOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := cli.ContainerInspect(ctx, created.ID, client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return created.ID, res.Container.NetworkSettings.Networks[evalnet].IPAddress.String()
}

// sameContainer checks that the workspace is still the container *first.
func (e *dockerEnv) sameContainer(first *string) func(*terraform.State) error {
	return func(s *terraform.State) error {
		if id := e.container(s); id != *first {
			return fmt.Errorf("the change replaced container %s with %s", *first, id)
		}
		return nil
	}
}

// getScript connects to <host>:<port>, prints what it answers, then
// rc=<exit code>. A host name is resolved with nslookup, as the test
// image's static busybox cannot resolve names for nc or wget itself.
func getScript(host string, port int) string {
	return fmt.Sprintf(`ip=%s; case $ip in *[!0-9.]*) ip=$(nslookup $ip 2>/dev/null | awk '/^Name:/ { n = 1 } n && /^Address/ { a = $NF } END { print a }');; esac
nc -w 3 $ip %d </dev/null 2>&1; echo rc=$?`, host, port)
}

// fetch is a command running getScript in the workspace.
func fetch(name, host string, port int) string {
	return fmt.Sprintf(`
resource "sandbox_command" %q {
  workspace_id             = sandbox_workspace.ws.id
  allow_non_zero_exit_code = true
  shell                    = <<-EOT
    %s
  EOT
}
`, name, strings.ReplaceAll(getScript(host, port), "\n", "\n    "))
}

// serve starts, in the workspace, a server answering "ws-ok" to every TCP
// connection on port 8081, which keeps running after the command.
const serve = `
resource "sandbox_command" "serve" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "setsid sh -c 'while true; do echo ws-ok | nc -l -p 8081; done' </dev/null >/dev/null 2>&1 &"
}
`

// fromPeer checks that the peer container fetches want from host.
func fromPeer(peerID *string, host string, port int, want string) func(*terraform.State) error {
	return func(*terraform.State) error {
		var got string
		var err error
		for i := 0; i < 20; i++ { // the server may still be starting
			if got, err = sh(*peerID, getScript(host, port)); err == nil && got == want+"\nrc=0" {
				return nil
			}
			time.Sleep(200 * time.Millisecond)
		}
		return fmt.Errorf("the peer container fetching from %s:%d: got %q (%w), want %q", host, port, got, err, want)
	}
}

// A workspace on a test-created network reaches a second container by its
// alias, and that container reaches the workspace by the workspace's alias;
// extra_hosts land in /etc/hosts. The plan after apply is empty, an import
// reads networks and hosts back, a disconnect out of band is repaired in
// place, and new aliases are applied live to the same container.
func TestAccDockerNetwork_aliases(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	evalnet := testNetwork(t)
	other := testNetwork(t) // sorts after evalnet, as the daemon lists it
	peerID, _ := peer(t, evalnet, "peer")
	block := func(alias string) string {
		return fmt.Sprintf("networks    = [{ name = %q, aliases = [%q] }, { name = %q }]\n    extra_hosts = { \"db.internal\" = \"10.0.0.5\" }",
			evalnet, alias, other)
	}
	body := serve + fetch("reach", "peer", 8080)
	var first string
	sameContainer := env.sameContainer(&first)
	// The exposed port stays published on 127.0.0.1.
	ports := "exposed_ports = [8081]"
	fromHost := func(s *terraform.State) error {
		a := s.RootModule().Resources["sandbox_workspace.ws"].Primary.Attributes
		if a["endpoints.0.host"] != "127.0.0.1" {
			return fmt.Errorf("endpoints.0.host = %q", a["endpoints.0.host"])
		}
		var last error
		for i := 0; i < 20; i++ {
			c, err := net.DialTimeout("tcp", "127.0.0.1:"+a["endpoints.0.host_port"], 3*time.Second)
			if err == nil {
				b, rerr := io.ReadAll(c)
				c.Close()
				if rerr == nil && string(b) == "ws-ok\n" {
					return nil
				}
				err = fmt.Errorf("read %q (%w)", b, rerr)
			}
			last = err
			time.Sleep(200 * time.Millisecond)
		}
		return fmt.Errorf("the workspace's endpoint 127.0.0.1:%s from the host: %w", a["endpoints.0.host_port"], last)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: env.configDocker(block("agent"), ports, body),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("sandbox_workspace.ws", tfjsonpath.New("docker").AtMapKey("networks"),
						knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
							"name": knownvalue.StringExact(evalnet), "aliases": knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("agent")}),
						}), knownvalue.ObjectExact(map[string]knownvalue.Check{
							"name": knownvalue.StringExact(other), "aliases": knownvalue.Null(),
						})})),
				},
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("sandbox_command.reach", "stdout", "peer-ok\nrc=0\n"),
					fromPeer(&peerID, "agent", 8081, "ws-ok"),
					env.expectSh("grep db.internal /etc/hosts", "10.0.0.5\tdb.internal"),
					// On the two test networks only, not the default bridge.
					env.expectSh("grep -c eth /proc/net/dev", "2"),
					fromHost,
					func(s *terraform.State) error { first = env.container(s); return nil },
				),
			},
			{ResourceName: "sandbox_workspace.ws", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"keep_on_destroy", "docker.pull_policy"}},
			{
				// Disconnected behind Terraform's back: the plan reconnects
				// in place.
				PreConfig: func() {
					_, err := dockertest.Client().NetworkDisconnect(context.Background(), evalnet,
						client.NetworkDisconnectOptions{Container: first, Force: true})
					must(t, err)
				},
				Config: env.configDocker(block("agent"), ports, body),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeTestCheckFunc(sameContainer, fromPeer(&peerID, "agent", 8081, "ws-ok")),
			},
			{
				// A new alias is applied live.
				Config: env.configDocker(block("agent2"), ports, body),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeTestCheckFunc(sameContainer, fromPeer(&peerID, "agent2", 8081, "ws-ok"),
					func(*terraform.State) error {
						out, err := sh(peerID, "for a in agent2 agent; do nslookup $a 127.0.0.11 >/dev/null 2>&1 && echo $a=yes || echo $a=no; done")
						if err != nil || out != "agent2=yes\nagent=no" {
							return fmt.Errorf("aliases resolved on %s: %q (%w), want agent2 only", evalnet, out, err)
						}
						return nil
					}),
			},
		},
		CheckDestroy: env.checkGone,
	})
}

// A workspace with network_mode = "none" reaches the peer neither by name
// nor by address; its dns servers are its resolv.conf.
func TestAccDockerNetwork_none(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	evalnet := testNetwork(t)
	peerID, ip := peer(t, evalnet, "peer")
	body := fetch("by_name", "peer", 8080) + fetch("by_ip", ip, 8080)
	notReached := regexp.MustCompile(`^(?s)(.*\n)?rc=[1-9]\d*\n$`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: env.configDocker("network_mode = \"none\"\n    dns = [\"10.0.0.2\"]", "", body),
				Check: resource.ComposeTestCheckFunc(
					resource.TestMatchResourceAttr("sandbox_command.by_name", "stdout", notReached),
					resource.TestMatchResourceAttr("sandbox_command.by_ip", "stdout", notReached),
					env.expectSh("grep nameserver /etc/resolv.conf", "nameserver 10.0.0.2"),
					// The peer itself answers, on its network.
					func(*terraform.State) error {
						out, err := sh(peerID, getScript("127.0.0.1", 8080))
						if err != nil || out != "peer-ok\nrc=0" {
							return fmt.Errorf("the peer does not serve: %q (%w)", out, err)
						}
						return nil
					},
				),
			},
			{ResourceName: "sandbox_workspace.ws", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"keep_on_destroy", "docker.pull_policy"}},
		},
		CheckDestroy: env.checkGone,
	})
}

// Networks and extra_hosts that cannot work fail the plan on their
// attribute; a network the daemon does not have fails the apply naming it
// and saying how to create it, before any container exists.
func TestAccDockerNetwork_refusals(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	plan := func(docker string, want ...string) resource.TestStep {
		return resource.TestStep{Config: env.configDocker(docker, "", ""), PlanOnly: true, ExpectError: seqRe(want...)}
	}
	missing := "sandbox-test-missing-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			plan("network_mode = \"none\"\n    networks = [{ name = \"evalnet\" }]",
				"Unusable network setting", `a container with network_mode = "none" has no network`),
			plan(`networks = [{ name = "a" }, { name = "a" }]`, "Unusable network setting", `network "a" is listed twice`),
			plan(`networks = [{ name = "bridge", aliases = ["agent"] }]`, "Unusable network setting",
				`network "bridge": Docker gives aliases on user-defined networks only`),
			plan(`extra_hosts = { "db.internal" = "10.0.0.300" }`, "Unusable network setting",
				`db.internal = "10.0.0.300": expected an IP address`),
			plan(`dns = ["resolver.example"]`, "Unusable network setting", `"resolver.example" is not an IP address`),
			{
				Config:      env.configDocker(fmt.Sprintf("networks = [{ name = %q }]", missing), "", ""),
				ExpectError: seqRe("Network not found", fmt.Sprintf("docker.networks[0].name: network %q does not exist", missing), "docker network create "+missing),
			},
		},
		CheckDestroy: func(*terraform.State) error {
			res, err := dockertest.Client().ContainerList(context.Background(), client.ContainerListOptions{All: true,
				Filters: make(client.Filters).Add("name", "sandbox-")})
			if err != nil {
				return err
			}
			for _, c := range res.Items {
				if info, err := dockertest.Client().ContainerInspect(context.Background(), c.ID, client.ContainerInspectOptions{}); err == nil &&
					info.Container.HostConfig != nil && strings.Contains(string(info.Container.HostConfig.NetworkMode), missing) {
					return fmt.Errorf("container %s was created for the missing network", c.ID)
				}
			}
			return nil
		},
	})
}
