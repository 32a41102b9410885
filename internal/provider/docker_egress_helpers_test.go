package provider

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/nftables"
	"github.com/google/nftables/userdata"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
)

// keepHostRules checks, when the test and all its cleanups are done, that
// the host's own firewall is as it was: the same nftables tables (read
// over netlink in the host's namespace) and the same iptables rules, apart
// from the chains and bridges Docker manages for the networks and
// containers that tests (these and others running meanwhile) create and
// remove, and apart from counters. Call it first, so its check runs last.
func keepHostRules(t *testing.T) {
	t.Helper()
	before := hostRules(t)
	t.Cleanup(func() {
		if after := hostRules(t); after != before {
			t.Errorf("the host's firewall changed:\nbefore:\n%s\nafter:\n%s", before, after)
		}
	})
}

var counters = regexp.MustCompile(`\[\d+:\d+\]`)

// dockerHairpin is the rule Docker adds to POSTROUTING for each port a
// container publishes (other tests' containers come and go meanwhile);
// KUBE chains and kube-br0 are the test cluster's, when one runs.
var dockerHairpin = regexp.MustCompile(`^-A POSTROUTING -s (\S+)/32 -d (\S+)/32 -p (tcp|udp) -m (tcp|udp) --dport \d+ -j MASQUERADE$`)

func hostRules(t *testing.T) string {
	t.Helper()
	conn, err := nftables.New()
	if err != nil {
		t.Fatal(err)
	}
	tables, err := conn.ListTables()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tb := range tables {
		names = append(names, fmt.Sprintf("table %d %s", tb.Family, tb.Name))
		if tb.Name == "sandbox_egress" {
			t.Errorf("the host's own namespace has the table %s", tb.Name)
		}
	}
	slices.Sort(names)
	out, err := exec.Command("iptables-save").Output()
	if err != nil {
		t.Fatalf("iptables-save: %v", err)
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "#") || strings.Contains(l, "DOCKER") || strings.Contains(l, "br-") || strings.Contains(l, "docker0") ||
			dockerHairpin.MatchString(l) || strings.Contains(l, "KUBE") || strings.Contains(l, "kube-br0") {
			continue
		}
		lines = append(lines, counters.ReplaceAllString(l, ""))
	}
	return strings.Join(names, "\n") + "\n" + strings.Join(lines, "\n")
}

// egressPeer starts a container of the test image on evalnet answering
// "<name>-8080" on port 8080 and "<name>-8081" on port 8081, and returns
// its id and address; it is removed at the test's end.
func egressPeer(t *testing.T, evalnet, name string) (id, ip string) {
	t.Helper()
	ctx := context.Background()
	cli := dockertest.Client()
	script := fmt.Sprintf("(while true; do echo %[1]s-8080 | nc -l -p 8080; done) & while true; do echo %[1]s-8081 | nc -l -p 8081; done", name)
	created, err := cli.ContainerCreate(ctx, client.ContainerCreateOptions{
		Config:           &container.Config{Image: dockertest.Image, Entrypoint: []string{"sh", "-c"}, Cmd: []string{script}},
		HostConfig:       &container.HostConfig{NetworkMode: container.NetworkMode(evalnet)},
		NetworkingConfig: &network.NetworkingConfig{EndpointsConfig: map[string]*network.EndpointSettings{evalnet: {}}},
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

// reach connects from the workspace container to ip:port (as root, behind
// the provider's back) and returns what the peer answered, or "" when the
// connection failed within three seconds.
func reach(containerID, ip string, port int) string {
	out, _ := sh(containerID, fmt.Sprintf("nc -w 3 %s %d </dev/null 2>/dev/null", ip, port))
	return out
}

// expectReach checks what the workspace reaches: want maps "ip:port" to
// the expected answer ("" for unreachable).
func expectReach(containerID string, want map[string]string) error {
	for dst, w := range want {
		ip, port, _ := strings.Cut(dst, ":")
		var p int
		_, _ = fmt.Sscan(port, &p)
		var got string
		for i := 0; i < 5; i++ { // a peer's nc may be between two connections
			if got = reach(containerID, ip, p); got == w {
				break
			}
			if w == "" {
				return fmt.Errorf("the workspace reached %s (%q) though egress denies it", dst, got)
			}
			time.Sleep(300 * time.Millisecond)
		}
		if got != w {
			return fmt.Errorf("the workspace fetching %s: got %q, want %q", dst, got, w)
		}
	}
	return nil
}

// nsTable lists, over netlink in the container's own network namespace
// (not through the provider's helper), the egress table's chain policy
// and its rules' comments; present is false without the table.
func nsTable(containerID string) (present bool, policy string, comments []string, err error) {
	res, err := dockertest.Client().ContainerInspect(context.Background(), containerID, client.ContainerInspectOptions{})
	if err != nil {
		return false, "", nil, err
	}
	f, err := os.Open(fmt.Sprintf("/proc/%d/ns/net", res.Container.State.Pid))
	if err != nil {
		return false, "", nil, err
	}
	defer f.Close()
	conn, err := nftables.New(nftables.WithNetNSFd(int(f.Fd())))
	if err != nil {
		return false, "", nil, err
	}
	tables, err := conn.ListTablesOfFamily(nftables.TableFamilyINet)
	if err != nil {
		return false, "", nil, err
	}
	var table *nftables.Table
	for _, tb := range tables {
		if tb.Name == "sandbox_egress" {
			table = tb
		}
	}
	if table == nil {
		return false, "", nil, nil
	}
	chains, err := conn.ListChainsOfTableFamily(nftables.TableFamilyINet)
	if err != nil {
		return true, "", nil, err
	}
	for _, c := range chains {
		if c.Table.Name != table.Name || c.Name != "output" || c.Policy == nil {
			continue
		}
		policy = map[nftables.ChainPolicy]string{nftables.ChainPolicyDrop: "drop", nftables.ChainPolicyAccept: "accept"}[*c.Policy]
		rules, err := conn.GetRules(table, c)
		if err != nil {
			return true, policy, nil, err
		}
		for _, r := range rules {
			s, _ := userdata.GetString(r.UserData, userdata.TypeComment)
			comments = append(comments, s)
		}
	}
	return true, policy, comments, nil
}

// flushJoined removes the egress table from the workspace's namespace out
// of band, from a container joined to it with NET_ADMIN (running the file
// helper build the tests use), as an administrator could.
func flushJoined(containerID string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	helper := os.Getenv("SANDBOX_FS_HELPER")
	if helper == "" {
		return fmt.Errorf("SANDBOX_FS_HELPER is not set")
	}
	cli := dockertest.Client()
	created, err := cli.ContainerCreate(ctx, client.ContainerCreateOptions{
		Config: &container.Config{Image: dockertest.Image, Entrypoint: []string{"sleep"}, Cmd: []string{"60"}},
		HostConfig: &container.HostConfig{NetworkMode: container.NetworkMode("container:" + containerID), CapAdd: []string{"NET_ADMIN"},
			Mounts: []mount.Mount{{Type: mount.TypeBind, Source: helper, Target: "/flush-helper", ReadOnly: true}}},
	})
	if err != nil {
		return err
	}
	defer func() {
		_, _ = cli.ContainerRemove(context.Background(), created.ID, client.ContainerRemoveOptions{Force: true})
	}()
	if _, err := cli.ContainerStart(ctx, created.ID, client.ContainerStartOptions{}); err != nil {
		return err
	}
	_, err = dockertest.Exec(ctx, created.ID, "/flush-helper", "egress", "remove")
	return err
}

// seenOne returns the one workspace container the test has seen.
func (e *dockerEnv) seenOne(t *testing.T) string {
	t.Helper()
	if len(e.seen) != 1 {
		t.Fatalf("the test saw %d workspace containers, want 1", len(e.seen))
	}
	for id := range e.seen {
		return id
	}
	return ""
}
