package docker

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
)

// hostGateway is the value of an extra host naming the daemon's host.
const hostGateway = "host-gateway"

// ValidateNetworking checks n for a container of network mode mode; the
// first problem is a *FieldError naming the docker block's attribute
// (networks, extra_hosts or dns).
func ValidateNetworking(mode string, n spec.DockerNetworking) error {
	if len(n.Networks) > 0 {
		switch {
		case mode == "none":
			return fieldErr("networks", "a container with network_mode = \"none\" has no network: it cannot join networks; "+
				"remove network_mode, or the networks")
		case mode == "host" || strings.HasPrefix(mode, "container:"):
			return fieldErr("networks", "network_mode = %q shares another network stack, which Docker cannot connect to "+
				"networks; remove network_mode, or the networks", mode)
		}
	}
	seen := map[string]bool{}
	for i, nw := range n.Networks {
		switch {
		case strings.TrimSpace(nw.Name) == "":
			return fieldErr("networks", "network %d: the name must not be empty", i)
		case seen[nw.Name]:
			return fieldErr("networks", "network %q is listed twice; give all its aliases in one entry", nw.Name)
		case nw.Name == mode:
			return fieldErr("networks", "network %q is already network_mode; to give it aliases, list it in networks "+
				"and remove network_mode", nw.Name)
		}
		seen[nw.Name] = true
		for _, a := range nw.Aliases {
			if a == "" || strings.ContainsAny(a, " \t\n/:") {
				return fieldErr("networks", "network %q: alias %q is not a host name", nw.Name, a)
			}
		}
		if len(nw.Aliases) > 0 && (nw.Name == "bridge" || nw.Name == "host" || nw.Name == "none") {
			return fieldErr("networks", "network %q: Docker gives aliases on user-defined networks only "+
				"(docker network create)", nw.Name)
		}
	}
	for _, h := range sortedKeys(n.ExtraHosts) {
		ip := n.ExtraHosts[h]
		if h == "" || strings.ContainsAny(h, " \t\n:=") {
			return fieldErr("extra_hosts", "%q is not a host name", h)
		}
		if _, err := netip.ParseAddr(ip); err != nil && ip != hostGateway {
			return fieldErr("extra_hosts", "%s = %q: expected an IP address (\"10.0.0.5\", \"fd00::5\") or %q", h, ip, hostGateway)
		}
	}
	for _, s := range n.DNS {
		if _, err := netip.ParseAddr(s); err != nil {
			return fieldErr("dns", "%q is not an IP address (such as \"10.0.0.2\")", s)
		}
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// checkNetworksExist returns a *MissingNetworkError for the first network
// the daemon does not have.
func (d *Daemon) checkNetworksExist(ctx context.Context, nws []spec.DockerNetwork) error {
	cli, err := d.api()
	if err != nil {
		return err
	}
	for i, nw := range nws {
		_, err := cli.NetworkInspect(ctx, nw.Name, client.NetworkInspectOptions{})
		switch {
		case cerrdefs.IsNotFound(err):
			return &spec.MissingNetworkError{Index: i, Name: nw.Name}
		case err != nil:
			return fmt.Errorf("inspecting network %s: %w", nw.Name, err)
		}
	}
	return nil
}

// applyNetworking sets the network settings of s on the container's
// configuration; the networks it does not join at creation are returned,
// to be connected before the container starts.
func applyNetworking(s Spec, hc *container.HostConfig) (*network.NetworkingConfig, []spec.DockerNetwork) {
	n := s.Networking
	for _, h := range sortedKeys(n.ExtraHosts) {
		hc.ExtraHosts = append(hc.ExtraHosts, h+":"+n.ExtraHosts[h])
	}
	for _, a := range n.DNS {
		if ip, err := netip.ParseAddr(a); err == nil {
			hc.DNS = append(hc.DNS, ip)
		}
	}
	rest := n.Networks
	if s.NetworkMode != "" || len(rest) == 0 {
		return nil, rest
	}
	first := rest[0]
	hc.NetworkMode = container.NetworkMode(first.Name)
	return &network.NetworkingConfig{EndpointsConfig: map[string]*network.EndpointSettings{
		first.Name: {Aliases: slices.Clone(first.Aliases)},
	}}, rest[1:]
}

// connect joins the container to each network with its aliases.
func (d *Daemon) connect(ctx context.Context, id string, nws ...spec.DockerNetwork) error {
	cli, err := d.api()
	if err != nil {
		return err
	}
	for _, nw := range nws {
		_, err = cli.NetworkConnect(ctx, nw.Name, client.NetworkConnectOptions{Container: id,
			EndpointConfig: &network.EndpointSettings{Aliases: slices.Clone(nw.Aliases)}})
		if err != nil {
			return fmt.Errorf("connecting container %s to network %s: %w", short(id), nw.Name, err)
		}
	}
	return nil
}

// validateNetworkAndGrants checks the networking and the path grants of s.
func (s Spec) validateNetworkAndGrants() error {
	if err := ValidateNetworking(s.NetworkMode, s.Networking); err != nil {
		return err
	}
	return ValidateGrants(s.Root, s.Grants, s.Volumes, s.Isolation.Tmpfs)
}

// readNetworking reads Networking back from the container: the networks
// it is on besides its network mode's own (all of them when the mode came
// from the first of Networks, primary), sorted by name, with the aliases
// given (not the container's short id, which older daemons add).
func readNetworking(c container.InspectResponse, primary bool) spec.DockerNetworking {
	var n spec.DockerNetworking
	mode := ""
	if hc := c.HostConfig; hc != nil {
		mode = string(hc.NetworkMode)
		for _, e := range hc.ExtraHosts {
			h, ip, ok := strings.Cut(e, ":")
			if !ok {
				h, ip, _ = strings.Cut(e, "=")
			}
			if n.ExtraHosts == nil {
				n.ExtraHosts = map[string]string{}
			}
			n.ExtraHosts[h] = ip
		}
		for _, a := range hc.DNS {
			n.DNS = append(n.DNS, a.String())
		}
	}
	if c.NetworkSettings == nil {
		return n
	}
	for name, ep := range c.NetworkSettings.Networks {
		if !primary && (name == mode || ((mode == "" || mode == "default") && name == "bridge")) {
			continue
		}
		nw := spec.DockerNetwork{Name: name}
		if ep != nil {
			for _, a := range ep.Aliases {
				if a != short(c.ID) && a != strings.TrimPrefix(c.Name, "/") && !slices.Contains(nw.Aliases, a) {
					nw.Aliases = append(nw.Aliases, a)
				}
			}
		}
		slices.Sort(nw.Aliases)
		n.Networks = append(n.Networks, nw)
	}
	slices.SortFunc(n.Networks, func(a, b spec.DockerNetwork) int { return strings.Compare(a.Name, b.Name) })
	return n
}

// UpdateNetworks connects and disconnects the container so that it is on
// exactly the networks of want (besides its network mode's), each with
// its aliases: a network whose aliases changed is left and joined again.
func (b *Backend) UpdateNetworks(ctx context.Context, want []spec.DockerNetwork) error {
	defer b.changed()
	c, ok, err := b.d.inspect(ctx, b.id)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("container %s no longer exists", short(b.id))
	}
	have := readNetworking(c, primaryNetwork(c)).Networks
	cli, err := b.d.api()
	if err != nil {
		return err
	}
	same := func(a, b spec.DockerNetwork) bool {
		x, y := slices.Sorted(slices.Values(a.Aliases)), slices.Sorted(slices.Values(b.Aliases))
		return a.Name == b.Name && slices.Equal(slices.Compact(x), slices.Compact(y))
	}
	for _, h := range have {
		if slices.ContainsFunc(want, func(w spec.DockerNetwork) bool { return same(h, w) }) {
			continue
		}
		if _, err := cli.NetworkDisconnect(ctx, h.Name, client.NetworkDisconnectOptions{Container: b.id}); err != nil && !cerrdefs.IsNotFound(err) {
			return fmt.Errorf("disconnecting container %s from network %s: %w", short(b.id), h.Name, err)
		}
	}
	for i, w := range want {
		if slices.ContainsFunc(have, func(h spec.DockerNetwork) bool { return same(h, w) }) {
			continue
		}
		if err := b.d.checkNetworksExist(ctx, []spec.DockerNetwork{w}); err != nil {
			var missing *spec.MissingNetworkError
			if errors.As(err, &missing) {
				missing.Index = i
			}
			return err
		}
		if err := b.d.connect(ctx, b.id, w); err != nil {
			return err
		}
	}
	return nil
}
