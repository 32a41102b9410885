package docker

import (
	"context"
	"fmt"
	"strconv"

	"github.com/moby/moby/api/types/network"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// Endpoints reads back where each exposed port is published (design/sdk-model.md §6.2):
// the first binding of "<port>/tcp"; an empty or unspecified host address
// becomes 127.0.0.1; tls is false. A port without a binding is the Python SDK's
// not_configured error; a non-numeric host port is an error naming it.
func (b *Backend) Endpoints(ctx context.Context, ports []int) ([]sandbox.ExposedPortEndpoint, error) {
	c, ok, err := b.inspect(ctx)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("container %s no longer exists", short(b.id))
	}
	var published network.PortMap
	if c.NetworkSettings != nil {
		published = c.NetworkSettings.Ports
	}
	return PublishedEndpoints(published, ports)
}

// PublishedEndpoints reads the endpoint of each port from the port map of
// `docker inspect` (NetworkSettings.Ports), as Endpoints does.
func PublishedEndpoints(published network.PortMap, ports []int) ([]sandbox.ExposedPortEndpoint, error) {
	var out []sandbox.ExposedPortEndpoint
	for _, p := range ports {
		binds := published[tcpPort(p)]
		if len(binds) == 0 {
			return nil, sandbox.NewExposedPortNotConfiguredError(p, ports)
		}
		host := "127.0.0.1"
		if a := binds[0].HostIP; a.IsValid() && !a.IsUnspecified() {
			host = a.String()
		}
		hp, err := strconv.Atoi(binds[0].HostPort)
		if err != nil || hp < 1 || hp > 65535 {
			return nil, fmt.Errorf("exposed port %d: the daemon reported host port %q (invalid_host_port)", p, binds[0].HostPort)
		}
		out = append(out, sandbox.ExposedPortEndpoint{Host: host, Port: hp})
	}
	return out, nil
}
